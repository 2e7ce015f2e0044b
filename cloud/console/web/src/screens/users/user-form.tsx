/** Add a user to the tenant, and change a user's roles. */
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice, Field, inputValue } from '../../components/ui.tsx';
import { api, useUser } from '../../session.ts';
import { RolePicker } from './role-picker.tsx';
import { isAdmin } from './roles.ts';
import { type Member, nameOf } from './types.ts';

interface NewUser {
  email: string;
  first_name: string;
  last_name: string;
  username: string;
  password: string;
  pin: string;
  roles: string[];
}

const trimmed = (value: string) => (value.trim() ? value.trim() : undefined);

const bodyOf = (form: NewUser, withPassword: boolean) => ({
  email: form.email.trim(),
  first_name: trimmed(form.first_name),
  last_name: trimmed(form.last_name),
  username: trimmed(form.username),
  password: withPassword ? form.password : undefined,
  pin: trimmed(form.pin),
  roles: form.roles,
});

function Actions(props: { busy: boolean; label: string; onCancel: () => void; disabled?: boolean }) {
  return (
    <div class="dialog-actions">
      <button type="button" class="btn" onClick={props.onCancel} disabled={props.busy}>
        Cancel
      </button>
      <button type="submit" class="btn primary" aria-disabled={props.busy} disabled={props.disabled}>
        {props.busy ? 'Saving…' : props.label}
      </button>
    </div>
  );
}

/** Runs `work` on submit, keeping its error on screen; `done` gets its answer. */
function useSubmit<T>(work: () => Promise<T>, done: (answer: T) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      done(await work());
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  return { busy, error, submit };
}

function CredentialFields(props: {
  form: NewUser;
  set: (p: Partial<NewUser>) => void;
  withPassword: boolean;
  setWithPassword: (on: boolean) => void;
}) {
  return (
    <fieldset class="usr-sign-in">
      <legend class="field-label">How they sign in</legend>
      <label class="usr-check">
        <input
          type="radio"
          name="credential"
          checked={props.withPassword}
          onChange={() => props.setWithPassword(true)}
        />
        With a password I give them
      </label>
      <label class="usr-check">
        <input
          type="radio"
          name="credential"
          checked={!props.withPassword}
          onChange={() => props.setWithPassword(false)}
        />
        Without a password (single sign-on, or one set later)
      </label>
      {props.withPassword && (
        <Field
          label="Password"
          hint="At least 8 characters. The cloud sends no invitation: give it to them yourself, safely."
        >
          <input
            type="password"
            required
            minLength={8}
            maxLength={256}
            autoComplete="new-password"
            value={props.form.password}
            onInput={(e) => props.set({ password: inputValue(e) })}
          />
        </Field>
      )}
      <Field label="Store PIN (optional)" hint="6 digits, for signing in at a store's terminals">
        <input
          inputMode="numeric"
          pattern="[0-9]{6}"
          maxLength={6}
          autoComplete="off"
          value={props.form.pin}
          onInput={(e) => props.set({ pin: inputValue(e) })}
        />
      </Field>
    </fieldset>
  );
}

export function AddUserDialog(props: { onClose: (added?: Member) => void }) {
  const me = useUser();
  const [form, setForm] = useState<NewUser>({
    email: '',
    first_name: '',
    last_name: '',
    username: '',
    password: '',
    pin: '',
    roles: [],
  });
  const [withPassword, setWithPassword] = useState(true);
  const set = (patch: Partial<NewUser>) => setForm({ ...form, ...patch });
  const { busy, error, submit } = useSubmit(
    async () => (await api.post<{ data: Member }>('/v1/platform/users', bodyOf(form, withPassword))).data,
    props.onClose,
  );
  return (
    <Dialog title="Add a user" onClose={() => !busy && props.onClose()} wide>
      <form onSubmit={submit} data-testid="add-user-form">
        <Field label="Email" hint="An email that already has an account joins this tenant with it">
          <input
            type="email"
            required
            maxLength={320}
            autoComplete="off"
            value={form.email}
            onInput={(e) => set({ email: inputValue(e) })}
          />
        </Field>
        <div class="grid-2">
          <Field label="First name">
            <input
              maxLength={100}
              value={form.first_name}
              onInput={(e) => set({ first_name: inputValue(e) })}
            />
          </Field>
          <Field label="Last name">
            <input
              maxLength={100}
              value={form.last_name}
              onInput={(e) => set({ last_name: inputValue(e) })}
            />
          </Field>
        </div>
        <Field
          label="Username (optional)"
          hint="2 to 64 letters, digits, dots, dashes or underscores; for PIN sign-in"
        >
          <input
            pattern="[a-zA-Z0-9._\-]{2,64}"
            maxLength={64}
            autoComplete="off"
            value={form.username}
            onInput={(e) => set({ username: inputValue(e) })}
          />
        </Field>
        <RolePicker value={form.roles} onChange={(roles) => set({ roles })} myRoles={me?.roles ?? []} />
        <CredentialFields
          form={form}
          set={set}
          withPassword={withPassword}
          setWithPassword={setWithPassword}
        />
        {error !== undefined && <ErrorNotice error={error} title="The user was not added" />}
        <Actions
          busy={busy}
          label="Add user"
          onCancel={() => props.onClose()}
          disabled={form.roles.length === 0}
        />
      </form>
    </Dialog>
  );
}

export function EditRolesDialog(props: { member: Member; onClose: (changed?: Member) => void }) {
  const me = useUser();
  const [roles, setRoles] = useState(props.member.roles);
  const self = me?.id === props.member.id;
  const lockout = self && isAdmin(props.member.roles) && !isAdmin(roles);
  const { busy, error, submit } = useSubmit(
    async () =>
      (
        await api.patch<{ data: Member }>(`/v1/platform/users/${encodeURIComponent(props.member.id)}`, {
          roles,
        })
      ).data,
    props.onClose,
  );
  return (
    <Dialog title={`Roles of ${nameOf(props.member)}`} onClose={() => !busy && props.onClose()} wide>
      <form onSubmit={submit} data-testid="edit-roles-form">
        <p class="muted">
          A change takes effect at once: {self ? 'your' : 'their'} open sessions in this tenant end, and the
          next sign-in carries the new roles.
        </p>
        <RolePicker value={roles} onChange={setRoles} myRoles={me?.roles ?? []} />
        {lockout && (
          <p class="notice bad" role="alert" data-testid="self-lockout">
            You would remove your own last admin role and lose access to this screen. Keep tenant admin,
            platform admin or system admin, or ask another admin to change your roles.
          </p>
        )}
        {roles.length === 0 && !lockout && (
          <p class="notice info">With no role, {nameOf(props.member)} can sign in but do nothing.</p>
        )}
        {error !== undefined && <ErrorNotice error={error} title="The roles were not changed" />}
        <Actions busy={busy} label="Save roles" onCancel={() => props.onClose()} disabled={lockout} />
      </form>
    </Dialog>
  );
}
