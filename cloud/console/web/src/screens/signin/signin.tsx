/**
 * Sign-in: email and password, then a TOTP code when the user has MFA, or the tenant's SSO
 * providers (found by the company's short name). The refresh token never reaches this page: the
 * gateway keeps it in an http-only cookie.
 */
import { useEffect, useState } from 'preact/hooks';
import { query } from '../../api.ts';
import { ErrorNotice, Field, inputValue } from '../../components/ui.tsx';
import { api, completeSso, type SignInResult, signIn, useSessionState, verifyMfa } from '../../session.ts';

interface Provider {
  id: string;
  name: string;
  kind: string;
}

const SSO_RETURN = `${location.origin}/console/`;

function SsoButtons(props: { tenant: string }) {
  const [providers, setProviders] = useState<Provider[]>([]);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (!props.tenant) return setProviders([]);
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api
        .data<{ providers: Provider[] }>(
          `/v1/auth/sso/providers${query({ tenant_slug: props.tenant })}`,
          controller.signal,
        )
        .then(
          (answer) => setProviders(answer.providers),
          () => setProviders([]),
        );
    }, 300);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [props.tenant]);
  const start = async (provider: Provider) => {
    try {
      const answer = await api.post<{ data: { authorization_url: string } }>('/v1/auth/sso/init', {
        provider_id: provider.id,
        shell: 'web',
        redirect_uri: SSO_RETURN,
      });
      location.assign(answer.data.authorization_url);
    } catch (caught) {
      setError(caught);
    }
  };
  if (providers.length === 0) return null;
  return (
    <div class="sso">
      <p class="muted small">Or sign in with your company account</p>
      {providers.map((provider) => (
        <button type="button" class="btn wide" key={provider.id} onClick={() => void start(provider)}>
          Continue with {provider.name}
        </button>
      ))}
      {error !== undefined && <ErrorNotice error={error} title="Single sign-on did not start" />}
    </div>
  );
}

function MfaForm(props: { challenge: Extract<SignInResult, { type: 'mfa_required' }>; onBack: () => void }) {
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await verifyMfa(props.challenge.challenge_id, code.trim());
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  return (
    <form class="signin-form" onSubmit={submit} data-testid="mfa-form">
      <h1>Two-step verification</h1>
      <p class="muted">Enter the 6-digit code from your authenticator app.</p>
      <Field label="Code">
        <input
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
          value={code}
          onInput={(e) => setCode(inputValue(e))}
        />
      </Field>
      {error !== undefined && <ErrorNotice error={error} title="That code did not work" />}
      <button type="submit" class="btn primary wide" disabled={busy || code.length !== 6}>
        {busy ? 'Checking…' : 'Verify'}
      </button>
      <button type="button" class="btn link" onClick={props.onBack}>
        Back
      </button>
    </form>
  );
}

export function SignInScreen() {
  const { notice } = useSessionState();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [tenant, setTenant] = useState(() => new URLSearchParams(location.search).get('tenant') ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [challenge, setChallenge] = useState<Extract<SignInResult, { type: 'mfa_required' }> | null>(null);

  useEffect(() => {
    document.title = 'Sign in · Fleet console';
    // Back from an SSO provider: the code and state finish the sign-in.
    const params = new URLSearchParams(location.search);
    const code = params.get('code');
    const state = params.get('state');
    if (code && state) {
      history.replaceState(null, '', '/console/');
      completeSso(code, state).catch(setError);
    } else if (params.get('error')) setError(new Error(`Single sign-on failed: ${params.get('error')}`));
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const result = await signIn(email.trim(), password, tenant.trim() || undefined);
      if (result.type === 'mfa_required') setChallenge(result);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin" id="main">
      <div class="signin-card">
        {challenge ? (
          <MfaForm challenge={challenge} onBack={() => setChallenge(null)} />
        ) : (
          <form class="signin-form" onSubmit={submit} data-testid="signin-form">
            <h1>Fleet console</h1>
            <p class="muted">Sign in to run your stores.</p>
            {notice && (
              <p class="notice info" role="status">
                {notice}
              </p>
            )}
            <Field label="Email">
              <input
                type="email"
                name="email"
                autoComplete="username"
                required
                value={email}
                onInput={(e) => setEmail(inputValue(e))}
              />
            </Field>
            <Field label="Password">
              <input
                type="password"
                name="password"
                autoComplete="current-password"
                required
                value={password}
                onInput={(e) => setPassword(inputValue(e))}
              />
            </Field>
            <Field
              label="Company (optional)"
              hint="Your company's short name, when your email belongs to more than one"
            >
              <input
                name="tenant"
                autoComplete="organization"
                value={tenant}
                onInput={(e) => setTenant(inputValue(e))}
              />
            </Field>
            {error !== undefined && <ErrorNotice error={error} title="Signing in failed" />}
            <button type="submit" class="btn primary wide" disabled={busy}>
              {busy ? 'Signing in…' : 'Sign in'}
            </button>
            <SsoButtons tenant={tenant.trim()} />
          </form>
        )}
      </div>
    </main>
  );
}
