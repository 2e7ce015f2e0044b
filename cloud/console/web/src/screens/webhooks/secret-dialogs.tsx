/** Rotating a signing secret: say what happens to the old one, then show the new one once. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ConfirmDialog, Dialog } from '../../components/ui.tsx';
import { formatDateTime } from '../../format.ts';
import { type Iface, type Rotated, type Webhook, webhookApi } from './client.ts';

export function RotateSecret(props: { iface: Iface; webhook: Webhook; onClose: () => void }) {
  const [rotated, setRotated] = useState<Rotated | null>(null);
  if (rotated)
    return (
      <SecretReveal
        title="The new signing secret"
        secret={rotated.new_secret}
        onClose={props.onClose}
        note={
          <>
            It signs every delivery from now on. The old secret stays valid until{' '}
            <strong data-testid="old-secret-valid-until">
              {formatDateTime(rotated.old_secret_valid_until)}
            </strong>
            {props.iface === 'admin'
              ? ' (sent as X-Service-Signature-Previous)'
              : ' (as a second v1 of X-Service-Signature)'}
            : switch the receiver to the new secret before then.
          </>
        }
      />
    );
  return (
    <ConfirmDialog
      title="Rotate the signing secret?"
      confirmLabel="Rotate secret"
      onConfirm={async () => setRotated(await webhookApi.rotate(props.iface, props.webhook.id))}
      onClose={(done) => !done && props.onClose()}
    >
      <p>
        A new secret signs deliveries to <code>{props.webhook.url}</code> at once. The old secret stays valid
        until <strong>old_secret_valid_until</strong>, a grace period (24 hours unless this cloud is set
        otherwise) shown once the rotation is done, so the receiver can switch without refusing deliveries.
      </p>
      <p>The new secret is shown only once: have somewhere safe to put it.</p>
    </ConfirmDialog>
  );
}

export function SecretReveal(props: {
  title: string;
  secret: string;
  note?: ComponentChildren;
  onClose: () => void;
}) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <div class="dialog-body">
        {props.note && <p>{props.note}</p>}
        <div class="secret-box">
          <code data-testid="new-secret">{props.secret}</code>
          <button type="button" class="btn small" onClick={() => void copy()} data-testid="copy-secret">
            Copy
          </button>
        </div>
        <p class="small" role="status">
          {copied === true && 'Copied to the clipboard.'}
          {copied === false && 'The browser did not allow copying: select the secret and copy it by hand.'}
        </p>
        <p class="muted small">This is the only time the console can show it.</p>
      </div>
      <div class="dialog-actions">
        <button type="button" class="btn primary" onClick={props.onClose}>
          I have saved it
        </button>
      </div>
    </Dialog>
  );
}
