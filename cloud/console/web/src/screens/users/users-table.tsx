/** The tenant's users a page at a time, with a find-on-this-page filter kept in the URL. */
import { Empty, ErrorNotice, Field, inputValue, Loading, Pager, Pill } from '../../components/ui.tsx';
import type { Resource } from '../../hooks.ts';
import { nextCursorOf } from '../../hooks.ts';
import { useSearch } from '../../router.ts';
import { roleLabel } from './roles.ts';
import { type ListAnswer, type Member, nameOf } from './types.ts';

export type UserAction = 'roles' | 'status' | 'delete';

const matches = (member: Member, needle: string) =>
  [member.display_name, member.email, member.username, member.first_name, member.last_name, ...member.roles]
    .join(' ')
    .toLowerCase()
    .includes(needle);

function MfaCell(props: { self: boolean; mfaOn: boolean | undefined }) {
  if (!props.self)
    return (
      <td>
        <span class="muted small" title="The API reports MFA only for the signed-in user">
          Not reported
        </span>
      </td>
    );
  if (props.mfaOn === undefined) return <td>—</td>;
  return <td>{props.mfaOn ? <Pill tone="ok">On</Pill> : <Pill tone="warn">Off</Pill>}</td>;
}

function UserRow(props: {
  member: Member;
  self: boolean;
  mfaOn: boolean | undefined;
  onAction: (a: UserAction) => void;
}) {
  const { member, self } = props;
  const name = nameOf(member);
  return (
    <tr data-testid="user-row" data-user-id={member.id} data-email={member.email}>
      <td>
        <strong>{name}</strong> {self && <Pill tone="info">You</Pill>}
        {member.username && <div class="muted small">{member.username}</div>}
      </td>
      <td>{member.email}</td>
      <td>
        <div class="usr-pills">
          {member.roles.length === 0 && <span class="muted small">No role</span>}
          {member.roles.map((role) => (
            <Pill key={role} tone="neutral" title={role}>
              {roleLabel(role)}
            </Pill>
          ))}
        </div>
      </td>
      <td>
        {member.status === 'active' ? <Pill tone="ok">Active</Pill> : <Pill tone="bad">Suspended</Pill>}
      </td>
      <td class="small">
        {[member.has_password && 'Password', member.has_pin && 'PIN'].filter(Boolean).join(', ') ||
          'None set'}
      </td>
      <MfaCell self={self} mfaOn={props.mfaOn} />
      <td class="usr-actions">
        <button
          type="button"
          class="btn small"
          aria-label={`Edit roles of ${name}`}
          onClick={() => props.onAction('roles')}
        >
          Edit roles
        </button>
        {self ? (
          <span class="muted small usr-self-note">Another admin can suspend or remove you</span>
        ) : (
          <>
            <button
              type="button"
              class="btn small"
              aria-label={`${member.status === 'active' ? 'Suspend' : 'Reactivate'} ${name}`}
              onClick={() => props.onAction('status')}
            >
              {member.status === 'active' ? 'Suspend' : 'Reactivate'}
            </button>
            <button
              type="button"
              class="btn small usr-danger"
              aria-label={`Remove ${name}`}
              onClick={() => props.onAction('delete')}
            >
              Remove
            </button>
          </>
        )}
      </td>
    </tr>
  );
}

export function UsersTable(props: {
  list: Resource<ListAnswer<Member>>;
  myId: string | undefined;
  mfaOn: boolean | undefined;
  pages: { page: number; hasPrevious: boolean; previous: () => void; next: (cursor: string) => void };
  onAction: (member: Member, action: UserAction) => void;
  onAdd: () => void;
}) {
  const [search, setSearch] = useSearch();
  const needle = (search.get('q') ?? '').trim().toLowerCase();
  const { list } = props;
  const all = list.data?.data ?? [];
  const members = needle ? all.filter((member) => matches(member, needle)) : all;
  const next = nextCursorOf(list.data);
  return (
    <>
      <div class="toolbar">
        <Field label="Find on this page" hint="Name, email or role; the API offers no search across pages">
          <input
            type="search"
            value={search.get('q') ?? ''}
            onInput={(e) => setSearch({ q: inputValue(e) })}
          />
        </Field>
      </div>
      {list.error !== undefined && (
        <ErrorNotice error={list.error} onRetry={list.reload} title="The users could not be loaded" />
      )}
      {list.data === undefined && list.loading && <Loading label="Loading users…" />}
      {list.data !== undefined && members.length === 0 && (
        <Empty
          title={needle ? 'Nobody on this page matches' : 'No users yet'}
          action={
            needle ? (
              <button type="button" class="btn" onClick={() => setSearch({ q: '' })}>
                Clear the search
              </button>
            ) : (
              <button type="button" class="btn primary" onClick={props.onAdd}>
                Add the first user
              </button>
            )
          }
        >
          {needle
            ? 'Try another name or email, or look on the next page.'
            : 'Add the people who run your stores and head office.'}
        </Empty>
      )}
      {members.length > 0 && (
        <div class="table-wrap">
          <table class="table" data-testid="users-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Roles</th>
                <th scope="col">Status</th>
                <th scope="col">Sign-in</th>
                <th scope="col">MFA</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.map((member) => (
                <UserRow
                  key={member.id}
                  member={member}
                  self={member.id === props.myId}
                  mfaOn={props.mfaOn}
                  onAction={(action) => props.onAction(member, action)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        hasPrevious={props.pages.hasPrevious}
        hasNext={next !== null}
        onPrevious={props.pages.previous}
        onNext={() => next && props.pages.next(next)}
        summary={all.length > 0 ? `Page ${props.pages.page} · ${all.length} users` : undefined}
      />
    </>
  );
}
