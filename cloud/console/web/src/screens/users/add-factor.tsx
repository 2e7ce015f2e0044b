/**
 * Add an authenticator app: the cloud answers a secret and an otpauth:// URI once, shown as text to
 * type or paste into the app, then the app's first code turns the factor on.
 */
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice, Field, inputValue } from '../../components/ui.tsx';
import { api } from '../../session.ts';
import type { Factor, NewFactor } from './types.ts';

/** Runs `work` on submit, keeping its error on screen. */
function useSubmit(work: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (caught) {
      setError(caught);
    }
    setBusy(false);
  };
  return { busy, error, submit };
}

const grouped = (secret: string) => secret.replace(/(.{4})/g, '$1 ').trim();

function Enrol(props: { onEnrolled: (factor: NewFactor) => void; onCancel: () => void }) {
  const [label, setLabel] = useState('Authenticator app');
  const { busy, error, submit } = useSubmit(async () => {
    const answer = await api.post<{ data: NewFactor }>('/v1/auth/mfa/factors', {
      label: label.trim() || 'Authenticator app',
    });
    props.onEnrolled(answer.data);
  });
  return (
    <form onSubmit={submit}>
      <Field label="Name of this factor" hint="So you can tell your devices apart, e.g. Work phone">
        <input maxLength={100} value={label} onInput={(e) => setLabel(inputValue(e))} />
      </Field>
      {error !== undefined && <ErrorNotice error={error} title="The factor was not added" />}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" class="btn primary" aria-disabled={busy}>
          {busy ? 'Working…' : 'Continue'}
        </button>
      </div>
    </form>
  );
}

export function ActivateForm(props: {
  factor: Factor;
  onActivated: () => void;
  onCancel: () => void;
  cancelLabel: string;
}) {
  const [code, setCode] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await api.post(`/v1/auth/mfa/factors/${encodeURIComponent(props.factor.id)}/activate`, { code });
    props.onActivated();
  });
  return (
    <form onSubmit={submit} data-testid="activate-factor-form">
      <Field label="Code from the app" hint="The 6 digits it shows now">
        <input
          required
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          value={code}
          onInput={(e) => setCode(inputValue(e).replace(/\D/g, ''))}
        />
      </Field>
      {error !== undefined && <ErrorNotice error={error} title="The code was not accepted" />}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={props.onCancel} disabled={busy}>
          {props.cancelLabel}
        </button>
        <button type="submit" class="btn primary" aria-disabled={busy} disabled={code.length !== 6}>
          {busy ? 'Checking…' : 'Turn on'}
        </button>
      </div>
    </form>
  );
}

function Secret({ factor }: { factor: NewFactor }) {
  return (
    <div data-testid="totp-secret">
      <div class="notice info" role="status">
        <strong>Add this to your authenticator app now: it is shown only this once.</strong>
        <span>In the app, choose to enter a setup key, and type the key below (or paste the link).</span>
      </div>
      <dl class="usr-secret-list">
        <dt>Setup key</dt>
        <dd>
          <code class="usr-token" data-testid="totp-secret-value">
            {grouped(factor.secret)}
          </code>
        </dd>
        <dt>Setup link</dt>
        <dd>
          <code class="usr-token small" data-testid="totp-uri">
            {factor.otpauth_uri}
          </code>
        </dd>
      </dl>
    </div>
  );
}

export function AddFactorDialog(props: { onClose: (changed: boolean) => void }) {
  const [factor, setFactor] = useState<NewFactor>();
  const [done, setDone] = useState(false);
  const close = () => props.onClose(factor !== undefined);
  // A new dialog per step, so focus moves to the step's first control.
  const step = !factor ? 'enrol' : done ? 'done' : 'activate';
  return (
    <Dialog key={step} title="Add an authenticator app" onClose={close} wide>
      {!factor && <Enrol onEnrolled={setFactor} onCancel={close} />}
      {factor && !done && (
        <>
          <Secret factor={factor} />
          <ActivateForm
            factor={factor}
            onActivated={() => setDone(true)}
            onCancel={close}
            cancelLabel="Later"
          />
        </>
      )}
      {done && (
        <>
          <p class="notice ok" role="status">
            Two-step sign-in is on: from your next sign-in, the console asks for a code from the app.
          </p>
          <div class="dialog-actions">
            <button type="button" class="btn primary" onClick={close}>
              Done
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}
