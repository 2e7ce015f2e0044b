/** Roles as labelled checkboxes with what each allows; system_admin only for a system admin. */
import { ROLES } from './roles.ts';

export function RolePicker(props: {
  value: string[];
  onChange: (roles: string[]) => void;
  myRoles: string[];
}) {
  const known = new Set(ROLES.map((role) => role.name));
  const extra = props.value.filter((name) => !known.has(name));
  const toggle = (name: string, on: boolean) =>
    props.onChange(on ? [...props.value, name] : props.value.filter((role) => role !== name));
  const canGrant = (name: string) => name !== 'system_admin' || props.myRoles.includes('system_admin');
  return (
    <fieldset class="usr-role-picker" data-testid="role-picker">
      <legend class="field-label">Roles</legend>
      {ROLES.map((role) => (
        <label key={role.name} class="usr-role-option">
          <input
            type="checkbox"
            name="roles"
            value={role.name}
            checked={props.value.includes(role.name)}
            disabled={!canGrant(role.name)}
            onChange={(e) => toggle(role.name, (e.currentTarget as HTMLInputElement).checked)}
          />
          <span>
            <strong>{role.label}</strong> <code class="small">{role.name}</code>
            <span class="muted small usr-role-description">{role.description}</span>
          </span>
        </label>
      ))}
      {extra.map((name) => (
        <label key={name} class="usr-role-option">
          <input type="checkbox" name="roles" value={name} checked onChange={() => toggle(name, false)} />
          <span>
            <code>{name}</code> <span class="muted small">(a role this console does not describe)</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
