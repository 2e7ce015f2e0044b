/** My account: the signed-in user's authenticator apps (TOTP factors). */
import { useState } from 'preact/hooks';
import {
  ConfirmDialog,
  Dialog,
  Empty,
  ErrorNotice,
  Field,
  inputValue,
  Loading,
  Pill,
  Section,
} from '../../components/ui.tsx';
import { formatDateTime } from '../../format.ts';
import type { Resource } from '../../hooks.ts';
import { api, useUser } from '../../session.ts';
import { ActivateForm, AddFactorDialog } from './add-factor.tsx';
import type { Factor } from './types.ts';

type Acting = { factor: Factor; action: 'remove' | 'activate' } | { action: 'add' };

function RemoveDialog(props: { factor: Factor; lastEnabled: boolean; onClose: (done: boolean) => void }) {
  const [code, setCode] = useState('');
  const { factor } = props;
  return (
    <ConfirmDialog
      title={`Remove ${factor.label}?`}
      confirmLabel="Remove the factor"
      danger
      onConfirm={() =>
        api.delete(`/v1/auth/mfa/factors/${encodeURIComponent(factor.id)}`, factor.enabled ? { code } : {})
      }
      onClose={props.onClose}
    >
      <p>
        Codes from {factor.label} no longer work for your account.
        {props.lastEnabled && ' It is your only one: from your next sign-in, a password alone signs you in.'}
      </p>
      {factor.enabled && (
        <Field
          label="Current code from the app"
          hint="An enabled factor is removed only with one of its codes"
        >
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
      )}
    </ConfirmDialog>
  );
}

function FactorRow(props: { factor: Factor; onAct: (action: 'remove' | 'activate') => void }) {
  const { factor } = props;
  return (
    <tr data-testid="factor-row" data-factor-id={factor.id}>
      <td>{factor.label}</td>
      <td>
        {factor.enabled ? <Pill tone="ok">On</Pill> : <Pill tone="warn">Waiting for its first code</Pill>}
      </td>
      <td>{formatDateTime(factor.created_at)}</td>
      <td>{formatDateTime(factor.enabled_at)}</td>
      <td class="usr-actions">
        {!factor.enabled && (
          <button
            type="button"
            class="btn small"
            aria-label={`Turn on ${factor.label}`}
            onClick={() => props.onAct('activate')}
          >
            Turn on
          </button>
        )}
        <button
          type="button"
          class="btn small usr-danger"
          aria-label={`Remove ${factor.label}`}
          onClick={() => props.onAct('remove')}
        >
          Remove
        </button>
      </td>
    </tr>
  );
}

function FactorTable(props: {
  factors: Factor[];
  onAct: (factor: Factor, action: 'remove' | 'activate') => void;
}) {
  return (
    <div class="table-wrap">
      <table class="table" data-testid="factors-table">
        <thead>
          <tr>
            <th scope="col">Factor</th>
            <th scope="col">State</th>
            <th scope="col">Added</th>
            <th scope="col">Turned on</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.factors.map((factor) => (
            <FactorRow key={factor.id} factor={factor} onAct={(action) => props.onAct(factor, action)} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ActingDialog(props: { acting: Acting; factors: Factor[]; onClose: (changed: boolean) => void }) {
  const { acting } = props;
  if (acting.action === 'add') return <AddFactorDialog onClose={props.onClose} />;
  if (acting.action === 'remove') {
    const enabled = props.factors.filter((f) => f.enabled);
    const lastEnabled = acting.factor.enabled && enabled.length === 1;
    return <RemoveDialog factor={acting.factor} lastEnabled={lastEnabled} onClose={props.onClose} />;
  }
  return (
    <Dialog title={`Turn on ${acting.factor.label}`} onClose={() => props.onClose(false)}>
      <p>
        Enter a code from the app you added this factor to. If you no longer have the setup key, remove it and
        add a new one.
      </p>
      <ActivateForm
        factor={acting.factor}
        onActivated={() => props.onClose(true)}
        onCancel={() => props.onClose(false)}
        cancelLabel="Cancel"
      />
    </Dialog>
  );
}

export function MfaSection(props: { factors: Resource<Factor[]> }) {
  const user = useUser();
  const { factors } = props;
  const [acting, setActing] = useState<Acting>();
  const list = factors.data ?? [];
  const add = (
    <button type="button" class="btn" data-testid="add-factor" onClick={() => setActing({ action: 'add' })}>
      Add an authenticator app
    </button>
  );
  return (
    <div data-testid="mfa-section">
      <Section title="My account: two-step sign-in" actions={list.length > 0 ? add : undefined}>
        <p class="muted">
          Signed in as <strong>{user?.display_name || user?.email}</strong> ({user?.email}). With an
          authenticator app on, signing in takes your password and a 6-digit code from the app.
        </p>
        {factors.error !== undefined && (
          <ErrorNotice
            error={factors.error}
            onRetry={factors.reload}
            title="Your factors could not be loaded"
          />
        )}
        {factors.data === undefined && factors.loading && <Loading label="Loading your factors…" />}
        {factors.data !== undefined && list.length === 0 && (
          <Empty title="Two-step sign-in is off" action={add}>
            Add an authenticator app (Google Authenticator, 1Password, Authy…) so a stolen password alone
            cannot open the console.
          </Empty>
        )}
        {list.length > 0 && (
          <FactorTable factors={list} onAct={(factor, action) => setActing({ factor, action })} />
        )}
      </Section>
      {acting && (
        <ActingDialog
          acting={acting}
          factors={list}
          onClose={(changed) => {
            setActing(undefined);
            if (changed) factors.reload();
          }}
        />
      )}
    </div>
  );
}
