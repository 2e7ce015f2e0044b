/** What can be done to a subscription: send a test, enable, rotate the secret, delete. */
import { useState } from 'preact/hooks';
import { ConfirmDialog, Dialog } from '../../components/ui.tsx';
import { formatNumber } from '../../format.ts';
import { type Enabled, type Iface, type Webhook, webhookApi } from './client.ts';
import { RotateSecret } from './secret-dialogs.tsx';
import { TestDialog } from './test-dialog.tsx';

type Open = 'test' | 'enable' | 'rotate' | 'delete' | null;

export function WebhookActions(props: {
  iface: Iface;
  webhook: Webhook;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const [open, setOpen] = useState<Open>(null);
  const { webhook } = props;
  const name = webhook.url;
  return (
    <div class="row-actions">
      <button
        type="button"
        class="btn small"
        aria-label={`Send test to ${name}`}
        onClick={() => setOpen('test')}
        data-testid="send-test-open"
      >
        Send test
      </button>
      {webhook.status !== 'active' && (
        <button
          type="button"
          class="btn small"
          aria-label={`Enable ${name}`}
          onClick={() => setOpen('enable')}
          data-testid="enable-webhook"
        >
          Enable
        </button>
      )}
      <button
        type="button"
        class="btn small"
        aria-label={`Rotate secret for ${name}`}
        onClick={() => setOpen('rotate')}
        data-testid="rotate-secret"
      >
        Rotate secret
      </button>
      <button
        type="button"
        class="btn small danger"
        aria-label={`Delete ${name}`}
        onClick={() => setOpen('delete')}
        data-testid="delete-webhook"
      >
        Delete
      </button>
      {open === 'test' && <TestDialog iface={props.iface} webhook={webhook} onClose={() => setOpen(null)} />}
      {open === 'rotate' && (
        <RotateSecret iface={props.iface} webhook={webhook} onClose={() => setOpen(null)} />
      )}
      {open === 'enable' && (
        <EnableDialog
          iface={props.iface}
          webhook={webhook}
          onClose={() => setOpen(null)}
          onChanged={props.onChanged}
        />
      )}
      {open === 'delete' && (
        <ConfirmDialog
          title="Delete this subscription?"
          confirmLabel="Delete subscription"
          danger
          onConfirm={() => webhookApi.remove(props.iface, webhook.id)}
          onClose={(done) => {
            setOpen(null);
            if (done) props.onDeleted();
          }}
        >
          <p>
            <code>{webhook.url}</code> stops receiving events at once, and the deliveries it still had to send
            are dropped. Its past deliveries stay readable. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function EnableDialog(props: { iface: Iface; webhook: Webhook; onClose: () => void; onChanged: () => void }) {
  const [replay, setReplay] = useState(false);
  const [answer, setAnswer] = useState<Enabled | null>(null);
  if (answer)
    return (
      <Dialog title="Subscription enabled" onClose={props.onClose}>
        <p class="dialog-body" data-testid="enable-result">
          It missed {formatNumber(answer.missed_events)} event{answer.missed_events === 1 ? '' : 's'} while
          disabled; {formatNumber(answer.replayed)} {answer.replayed === 1 ? 'is' : 'are'} being sent again.
        </p>
        <div class="dialog-actions">
          <button type="button" class="btn primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  return (
    <ConfirmDialog
      title="Enable this subscription?"
      confirmLabel={replay ? 'Enable and replay' : 'Enable'}
      onConfirm={async () => {
        setAnswer(await webhookApi.enable(props.iface, props.webhook.id, replay));
        props.onChanged();
      }}
      onClose={(done) => !done && props.onClose()}
    >
      <p>
        Deliveries to <code>{props.webhook.url}</code> start again with the next event.
        {props.webhook.disabled_reason && ` It was disabled because: ${props.webhook.disabled_reason}.`}
      </p>
      <label class="check">
        <input
          type="checkbox"
          checked={replay}
          onChange={(e) => setReplay((e.currentTarget as HTMLInputElement).checked)}
        />
        Also send what it missed while disabled
      </label>
    </ConfirmDialog>
  );
}
