/** What an admin does to one device: restart it, give it a new enrolment token, revoke it. */
import { useRef, useState } from 'preact/hooks';
import { ConfirmDialog, Dialog, Field, inputValue } from '../../components/ui.tsx';
import { api } from '../../session.ts';
import { REASON_LABELS, TYPE_LABELS } from './labels.ts';
import { EnrolmentToken } from './token.tsx';
import {
  type Command,
  type Device,
  REVOCATION_REASONS,
  type RegeneratedToken,
  type RevocationReason,
} from './types.ts';

export type DeviceAction = 'restart' | 'token' | 'revoke';

interface ActionProps {
  device: Device;
  storeName: string;
  onClose: (message?: string) => void;
}

const path = (device: Device, action: string) => `/v1/mdm/devices/${encodeURIComponent(device.id)}/${action}`;

function RestartDialog({ device, storeName, onClose }: ActionProps) {
  const command = useRef<Command | undefined>(undefined);
  const restart = async () => {
    command.current = (await api.post<{ data: Command }>(path(device, 'restart'))).data;
  };
  const what =
    device.device_type === 'appliance'
      ? `the appliance of ${storeName} stops and starts again: for about a minute the store's screens, terminals and devices lose their local server and reconnect by themselves. Orders already taken are kept.`
      : `${storeName}'s appliance passes the restart to ${device.name}, which is unavailable while it starts again.`;
  return (
    <ConfirmDialog
      title={`Restart ${device.name}?`}
      confirmLabel="Queue the restart"
      onConfirm={restart}
      onClose={(done) =>
        onClose(
          done ? `Restart of ${device.name} queued (${command.current?.state ?? 'queued'}).` : undefined,
        )
      }
    >
      <p>
        The restart is sent as soon as the store is reachable; {what} A restart that cannot be delivered
        within an hour is dropped.
      </p>
    </ConfirmDialog>
  );
}

function RegenerateDialog({ device, storeName, onClose }: ActionProps) {
  const [answer, setAnswer] = useState<RegeneratedToken>();
  if (answer)
    return (
      <Dialog title={`New enrolment token for ${device.name}`} onClose={() => onClose()} wide>
        <EnrolmentToken
          token={answer.enrollment_token}
          deviceType={device.device_type}
          locationId={device.location_id}
          expiresAt={answer.expires_at}
        />
        <div class="dialog-actions">
          <button type="button" class="btn primary" onClick={() => onClose()}>
            I have copied the token
          </button>
        </div>
      </Dialog>
    );
  const enrolled = device.state !== 'pending_activation';
  return (
    <ConfirmDialog
      title={`New enrolment token for ${device.name}?`}
      confirmLabel="Make a new token"
      onConfirm={async () =>
        setAnswer((await api.post<{ data: RegeneratedToken }>(path(device, 'regenerate-token'))).data)
      }
      onClose={(done) => !done && onClose()}
    >
      <p>Any earlier token for this {TYPE_LABELS[device.device_type].toLowerCase()} stops working.</p>
      {enrolled && (
        <p>
          It keeps its current certificate and goes on working at {storeName}. When it enrols with the new
          token (a replaced or reset unit), its older certificates are revoked.
        </p>
      )}
    </ConfirmDialog>
  );
}

function RevokeDialog({ device, storeName, onClose }: ActionProps) {
  const [reason, setReason] = useState<RevocationReason>('cessation_of_operation');
  return (
    <ConfirmDialog
      title={`Revoke ${device.name} for good?`}
      confirmLabel="Revoke the device"
      danger
      onConfirm={() => api.post(path(device, 'revoke'), { reason })}
      onClose={(done) => onClose(done ? `${device.name} is revoked.` : undefined)}
    >
      <p>
        <strong>This cannot be undone.</strong> Every certificate of {device.name} ({device.serial_number}) is
        revoked, its waiting commands are cancelled, and {storeName}'s appliance closes its connections within
        seconds: it stops working at the store. To use the unit again, register it as a new device.
      </p>
      <Field label="Reason">
        <select value={reason} onChange={(e) => setReason(inputValue(e) as RevocationReason)}>
          {REVOCATION_REASONS.map((r) => (
            <option key={r} value={r}>
              {REASON_LABELS[r]}
            </option>
          ))}
        </select>
      </Field>
    </ConfirmDialog>
  );
}

export function DeviceActionDialog(props: ActionProps & { action: DeviceAction }) {
  if (props.action === 'restart') return <RestartDialog {...props} />;
  if (props.action === 'token') return <RegenerateDialog {...props} />;
  return <RevokeDialog {...props} />;
}
