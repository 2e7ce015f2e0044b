/** Suspend or reactivate a user, and remove one from the tenant, each confirmed first. */
import { ConfirmDialog } from '../../components/ui.tsx';
import { api } from '../../session.ts';
import { type Member, nameOf } from './types.ts';

const userPath = (member: Member) => `/v1/platform/users/${encodeURIComponent(member.id)}`;

export function StatusDialog(props: { member: Member; onClose: (done: boolean) => void }) {
  const { member } = props;
  const suspend = member.status === 'active';
  const name = nameOf(member);
  return (
    <ConfirmDialog
      title={suspend ? `Suspend ${name}?` : `Reactivate ${name}?`}
      confirmLabel={suspend ? 'Suspend' : 'Reactivate'}
      danger={suspend}
      onConfirm={() => api.patch(userPath(member), { status: suspend ? 'suspended' : 'active' })}
      onClose={props.onClose}
    >
      {suspend ? (
        <p>
          {name} ({member.email}) is signed out of this tenant at once, in the console and at the stores'
          terminals, and cannot sign in to it until reactivated. Their account, roles and history stay.
        </p>
      ) : (
        <p>
          {name} ({member.email}) can sign in to this tenant again with their roles:{' '}
          {member.roles.join(', ') || 'none'}.
        </p>
      )}
    </ConfirmDialog>
  );
}

export function DeleteDialog(props: { member: Member; onClose: (done: boolean) => void }) {
  const { member } = props;
  const name = nameOf(member);
  return (
    <ConfirmDialog
      title={`Remove ${name} from this tenant?`}
      confirmLabel={`Remove ${name}`}
      danger
      onConfirm={() => api.delete(userPath(member))}
      onClose={props.onClose}
    >
      <p>
        <strong>
          {name} ({member.email})
        </strong>{' '}
        loses every role here and is signed out of this tenant at once, in the console and at the stores.
        Their account stays for any other tenant they belong to. To bring them back, add them again by email.
      </p>
    </ConfirmDialog>
  );
}
