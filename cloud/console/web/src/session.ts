/**
 * The signed-in session as the spec advises web clients to keep it: the access token in this
 * module's memory only (never storage a script could read later), the refresh token in an
 * http-only, SameSite=Strict cookie the gateway sets when asked with COOKIE_TRANSPORT. A reload
 * renews through the cookie; a 401 renews once; signing out ends the session on the server.
 */
import { ApiError, COOKIE_TRANSPORT, createApi } from './api.ts';
import { createStore, useSlice } from './store.ts';

export interface User {
  id: string;
  tenant_id: string;
  email: string;
  roles: string[];
  display_name?: string;
}

interface TokenAnswer {
  status: {
    type: 'success';
    access_token: string;
    expires_in: number;
    user: User;
  };
}

export type SignInResult =
  | { type: 'success' }
  | { type: 'mfa_required'; challenge_id: string; factors: Array<{ id: string; label: string }> };

const session = createStore<{ user: User | null; restoring: boolean; notice: string | null }>({
  user: null,
  restoring: true,
  notice: null,
});

let accessToken: string | null = null;
let renewTimer: ReturnType<typeof setTimeout> | undefined;
let renewing: Promise<string | null> | undefined;

export const api = createApi({ token: () => accessToken, renew: () => renew() });

/** Renews a minute before the token expires, so a quiet screen is not met by a 401 first. */
function adopt(answer: TokenAnswer) {
  accessToken = answer.status.access_token;
  clearTimeout(renewTimer);
  const inMs = Math.max(30, answer.status.expires_in - 60) * 1000;
  renewTimer = setTimeout(() => void renew(), inMs);
  const user = session.get().user;
  session.set({ user: { ...user, ...answer.status.user }, restoring: false, notice: null });
}

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...COOKIE_TRANSPORT },
    body: JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  }).catch(() => {
    throw new ApiError(0, 'NETWORK', 'The cloud did not answer. Check the connection and try again.');
  });
  const parsed = (await response.json().catch(() => null)) as
    | (T & { error?: { code?: string; message?: string }; meta?: { request_id?: string } })
    | null;
  if (!response.ok)
    throw new ApiError(
      response.status,
      parsed?.error?.code ?? `HTTP_${response.status}`,
      parsed?.error?.message ?? 'Signing in failed',
      response.headers.get('x-request-id') ?? parsed?.meta?.request_id ?? null,
    );
  return parsed as T;
}

/** One renewal at a time: a page firing ten requests on a stale token renews once. */
export function renew(): Promise<string | null> {
  renewing ??= post<TokenAnswer>('/v1/auth/refresh', {})
    .then((answer) => {
      adopt(answer);
      return accessToken;
    })
    .catch(() => {
      end('Your session ended. Sign in again.');
      return null;
    })
    .finally(() => {
      renewing = undefined;
    });
  return renewing;
}

async function loadProfile() {
  const me = await api.data<User>('/v1/auth/me');
  session.set({ user: { ...session.get().user, ...me } });
}

export async function signIn(email: string, password: string, tenantSlug?: string): Promise<SignInResult> {
  const body = { email, password, ...(tenantSlug ? { tenant_slug: tenantSlug } : {}) };
  const answer = await post<TokenAnswer | { status: Exclude<SignInResult, { type: 'success' }> }>(
    '/v1/auth/login',
    body,
  );
  if (answer.status.type === 'mfa_required') return answer.status;
  adopt(answer as TokenAnswer);
  await loadProfile().catch(() => undefined);
  return { type: 'success' };
}

export async function verifyMfa(challengeId: string, code: string) {
  adopt(await post<TokenAnswer>('/v1/auth/mfa/verify', { challenge_id: challengeId, code }));
  await loadProfile().catch(() => undefined);
}

/** After an SSO provider sent the browser back with a code and state. */
export async function completeSso(code: string, state: string) {
  adopt(await post<TokenAnswer>('/v1/auth/sso/callback', { code, state }));
  await loadProfile().catch(() => undefined);
}

function end(notice: string | null) {
  accessToken = null;
  clearTimeout(renewTimer);
  session.set({ user: null, restoring: false, notice });
}

export async function signOut() {
  const token = accessToken;
  end(null);
  if (!token) return;
  await fetch('/v1/auth/logout', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...COOKIE_TRANSPORT },
    body: '{}',
    credentials: 'same-origin',
  }).catch(() => undefined);
}

/** On page load: a refresh cookie from an earlier visit signs the user back in. */
export async function restoreSession() {
  const renewed = await post<TokenAnswer>('/v1/auth/refresh', {}).catch(() => null);
  if (!renewed) return session.set({ restoring: false });
  adopt(renewed);
  await loadProfile().catch(() => undefined);
}

export function accessTokenNow() {
  return accessToken;
}

export const useUser = () => useSlice(session, (s) => s.user);
export const useSessionState = () => useSlice(session, (s) => s);
