/**
 * Signing in and out. The access token lives in memory and in sessionStorage (a reload of the
 * kiosk keeps the session; closing the window does not), never in localStorage. No refresh: a
 * 401 means signing in again.
 */
import { ApiError, createApi } from './api.ts';
import { isManager } from './lib/roles.ts';
import { type Session, store } from './store.ts';

const KEY = 'kiosk.session';

/** The API as the signed-in user; a 401 ends the session. */
export const api = createApi({
  token: () => store.get().session?.token ?? null,
  onUnauthorized: () => endSession(),
});

/** Calls nobody is signed in for (the staff tiles, PIN login). */
export const publicApi = createApi({ token: () => null });

interface LoginStatus {
  status:
    | { type: 'success'; access_token: string; user: { id: string; roles: string[]; email: string } }
    | { type: 'mfa_required' };
}

/** PIN login; the session is not kept anywhere (the time clock at the sign-in screen uses it once). */
export async function pinLogin(identifier: string, pin: string, displayName: string): Promise<Session> {
  const result = await publicApi.post<LoginStatus>('/v1/auth/login/pin', { identifier, pin });
  if (result.status.type !== 'success')
    throw new ApiError(403, 'MFA_REQUIRED', 'This account needs a second factor; sign in at the back office');
  const { access_token, user } = result.status;
  return {
    token: access_token,
    userId: user.id,
    displayName,
    roles: user.roles,
    manager: isManager(user.roles),
  };
}

/** Ends a session on the appliance; a session already gone is fine. */
export async function logout(token: string) {
  await createApi({ token: () => token })
    .delete('/v1/auth/session')
    .catch(() => undefined);
}

/** The store's time zone, read once with a staff member's token: the kiosk's clock is the store's. */
export async function learnTimeZone(token: string) {
  if (store.get().timeZone) return;
  const location = await createApi({ token: () => token })
    .get<{ timezone: string }>('/v1/commerce/location')
    .catch(() => undefined);
  if (location) store.set({ timeZone: location.timezone });
}

export function startSession(session: Session) {
  sessionStorage.setItem(KEY, JSON.stringify(session));
  performance.mark('kiosk:signed-in');
  store.set({ session });
  void learnTimeZone(session.token);
}

/** Back to the sign-in screen; the server's session is ended too unless it already has. */
export function endSession(options: { serverSide?: boolean } = {}) {
  const session = store.get().session;
  sessionStorage.removeItem(KEY);
  if (!session) return;
  store.set({ session: null });
  if (options.serverSide) void logout(session.token);
}

/** The session kept over a reload, if the appliance still takes its token. */
export async function restoreSession(): Promise<void> {
  const raw = sessionStorage.getItem(KEY);
  if (!raw) return;
  let saved: Session;
  try {
    saved = JSON.parse(raw) as Session;
  } catch {
    sessionStorage.removeItem(KEY);
    return;
  }
  try {
    const me = await createApi({ token: () => saved.token }).get<{ display_name: string; roles: string[] }>(
      '/v1/auth/me',
    );
    store.set({
      session: { ...saved, displayName: me.display_name, roles: me.roles, manager: isManager(me.roles) },
    });
    void learnTimeZone(saved.token);
  } catch {
    sessionStorage.removeItem(KEY);
  }
}
