/**
 * Users: the tenant's people, their roles and status (admins only), and My account, the signed-in
 * user's own authenticator apps.
 */
import { useState } from 'preact/hooks';
import { query } from '../../api.ts';
import { Empty, Page, Section } from '../../components/ui.tsx';
import { useCursorPages, useResource } from '../../hooks.ts';
import type { Route } from '../../router.ts';
import { api, useUser } from '../../session.ts';
import { MfaSection } from './mfa.tsx';
import { isAdmin } from './roles.ts';
import type { Factor, ListAnswer, Member } from './types.ts';
import { nameOf } from './types.ts';
import { DeleteDialog, StatusDialog } from './user-actions.tsx';
import { AddUserDialog, EditRolesDialog } from './user-form.tsx';
import { type UserAction, UsersTable } from './users-table.tsx';
import './users.css';

const PAGE_SIZE = 50;

type Acting = { action: UserAction; member: Member } | { action: 'add' };

function ActingDialog(props: { acting: Acting; onClose: (message?: string) => void }) {
  const { acting, onClose } = props;
  if (acting.action === 'add')
    return (
      <AddUserDialog
        onClose={(added) =>
          onClose(added ? `${nameOf(added)} can now sign in to this tenant with the roles given.` : undefined)
        }
      />
    );
  const { member } = acting;
  if (acting.action === 'roles')
    return (
      <EditRolesDialog
        member={member}
        onClose={(changed) => onClose(changed ? `Roles of ${nameOf(changed)} saved.` : undefined)}
      />
    );
  if (acting.action === 'status')
    return (
      <StatusDialog
        member={member}
        onClose={(done) =>
          onClose(
            done
              ? `${nameOf(member)} is ${member.status === 'active' ? 'suspended' : 'active again'}.`
              : undefined,
          )
        }
      />
    );
  return (
    <DeleteDialog
      member={member}
      onClose={(done) => onClose(done ? `${nameOf(member)} was removed from this tenant.` : undefined)}
    />
  );
}

function UsersScreen() {
  const me = useUser();
  const admin = isAdmin(me?.roles ?? []);
  const pages = useCursorPages('');
  const list = useResource(
    (signal) =>
      admin
        ? api.get<ListAnswer<Member>>(
            `/v1/platform/users${query({ limit: PAGE_SIZE, cursor: pages.cursor })}`,
            signal,
          )
        : Promise.resolve({ data: [] }),
    [pages.cursor, admin],
  );
  const factors = useResource((signal) => api.data<Factor[]>('/v1/auth/mfa/factors', signal), []);
  const [acting, setActing] = useState<Acting>();
  const [message, setMessage] = useState<string>();
  const mfaOn = factors.data ? factors.data.some((factor) => factor.enabled) : undefined;
  const add = () => setActing({ action: 'add' });
  return (
    <Page
      title="Users"
      subtitle="Who may use the console and the stores' terminals, and with which roles"
      actions={
        admin && (
          <button type="button" class="btn primary" data-testid="add-user" onClick={add}>
            Add user
          </button>
        )
      }
    >
      {message && (
        <p class="notice ok" role="status">
          {message}
        </p>
      )}
      {admin ? (
        <Section title="All users">
          <UsersTable
            list={list}
            myId={me?.id}
            mfaOn={mfaOn}
            pages={pages}
            onAction={(member, action) => setActing({ member, action })}
            onAdd={add}
          />
        </Section>
      ) : (
        <Section title="All users">
          <Empty title="Only admins manage users">
            Adding people and changing their roles takes the tenant admin, platform admin or system admin
            role: ask one of your admins. Your own two-step sign-in is below.
          </Empty>
        </Section>
      )}
      <MfaSection factors={factors} />
      {acting && (
        <ActingDialog
          acting={acting}
          onClose={(done) => {
            setActing(undefined);
            if (!done) return;
            setMessage(done);
            list.reload();
          }}
        />
      )}
    </Page>
  );
}

export const userRoutes: Route[] = [{ path: '/users', title: 'Users', screen: UsersScreen }];
