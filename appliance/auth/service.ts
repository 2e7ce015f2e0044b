import type { Clock } from '../../shared/clock.ts';
import { AppError } from '../../shared/http/errors.ts';
import {
  accountDisabled,
  invalidCredentials,
  notAMember,
  sessionEnded,
} from '../../shared/identity/errors.ts';
import type { SecretHasher } from '../../shared/identity/secrets.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { ApplianceDatabase } from '../db/index.ts';
import type { CloudJwks } from './cloud-jwks.ts';
import { loadApplianceKeys } from './keys.ts';
import {
  type ApplianceSessionRow,
  createStaffStore,
  type SignInStaff,
  type Staff,
  type StaffStatus,
} from './staff-store.ts';
import { createApplianceThrottle, type ThrottleKey, type ThrottlePolicies } from './throttle.ts';
import { type AccessClaims, APPLIANCE_SESSION_TTL_SECONDS, createApplianceTokens } from './tokens.ts';

export interface StaffAuthOptions {
  db: ApplianceDatabase;
  /** The tenant this appliance belongs to: only its staff log in, only its cloud tokens pass. */
  tenantId: string;
  locationId: string | null;
  hasher: SecretHasher;
  clock: Clock;
  newId: IdGenerator;
  /** The cloud's keys; without them only the appliance's own tokens are accepted. */
  cloudJwks?: CloudJwks | undefined;
  throttle?: ThrottlePolicies | undefined;
}

/** Who a guarded request acts for; the same shape as the cloud gateway's. */
export interface AuthContext {
  userId: string;
  tenantId: string;
  email: string;
  roles: string[];
  sessionId: string;
  locationId: string | null;
}

/** A staff member as seeds and sync deliver them; `pin` is hashed here, `pinHash` is kept as is. */
export interface StaffInput {
  id: string;
  tenantId?: string;
  email: string;
  username?: string | null;
  displayName: string;
  roles: string[];
  pin?: string;
  pinHash?: string | null;
  status?: StaffStatus;
  version: number;
  updatedAt?: string;
}

export interface PinLoginInput {
  identifier: string;
  pin: string;
  client: { ipAddress: string | null };
}

export const cloudSession = () =>
  new AppError(409, 'CLOUD_SESSION', 'This session was opened by the cloud; end it there');

const sessionView = (row: ApplianceSessionRow, staff: Staff, locationId: string | null) => ({
  session_id: row.id,
  user_id: row.staff_id,
  tenant_id: staff.tenantId,
  status: row.status,
  location_id: locationId,
  created_at: row.created_at,
  expires_at: row.expires_at,
  ended_at: row.ended_at,
});

const profileOf = (staff: Staff) => ({
  id: staff.id,
  tenant_id: staff.tenantId,
  email: staff.email,
  username: staff.username,
  display_name: staff.displayName,
  roles: staff.roles,
  status: staff.status,
});

/** Up to two letters for a tile: the first letters of the first and last words of the name. */
const initialsOf = (name: string) => {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const ends = words.length > 1 ? [words[0]!, words.at(-1)!] : words;
  return ends.map((word) => Array.from(word)[0]!.toLocaleUpperCase()).join('');
};

/** What a sign-in tile shows: the identifier is the one PIN login looks the staff member up by. */
const tileOf = (staff: SignInStaff) => ({
  id: staff.id,
  display_name: staff.displayName,
  identifier: staff.username ?? staff.email,
  initials: initialsOf(staff.displayName),
});

/** PIN login for store staff, the appliance's own sessions, and checks of any bearer token. */
export function createStaffAuth(options: StaffAuthOptions) {
  const { db, tenantId, locationId, hasher, clock } = options;
  const store = createStaffStore(db);
  const keys = loadApplianceKeys({ db, clock, newId: options.newId });
  const tokens = createApplianceTokens({ keys, cloudJwks: options.cloudJwks, clock });
  const throttle = createApplianceThrottle({ db, clock, policies: options.throttle });

  function findStaff(identifier: string) {
    const normalized = identifier.trim().toLowerCase();
    return normalized.includes('@')
      ? store.staffByEmail(tenantId, normalized)
      : store.staffByUsername(tenantId, normalized);
  }

  /** One answer, and the same argon2 work, for an unknown identifier and a wrong PIN. */
  async function checkPin(input: PinLoginInput) {
    const staff = findStaff(input.identifier);
    const address: ThrottleKey = { kind: 'address', id: input.client.ipAddress ?? 'unknown' };
    const attempt = throttle.begin(staff ? [address, { kind: 'account', id: staff.id }] : [address]);
    const matches = staff?.pinHash
      ? await hasher.verify(staff.pinHash, input.pin)
      : await hasher.verifyDummy(input.pin).then(() => false);
    if (!staff || !matches) throw invalidCredentials();
    throttle.succeed(attempt);
    return staff;
  }

  async function openSession(staff: Staff) {
    const now = clock.now();
    const session: ApplianceSessionRow = {
      id: options.newId(),
      staff_id: staff.id,
      status: 'active',
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + APPLIANCE_SESSION_TTL_SECONDS * 1000).toISOString(),
      ended_at: null,
    };
    store.insertSession(session);
    const claims = { tenant_id: staff.tenantId, email: staff.email, roles: staff.roles };
    return tokens.issue({ sub: staff.id, ...claims, session_id: session.id });
  }

  function liveStaff(id: string) {
    const staff = store.staff(id);
    return staff?.status === 'active' && staff.tenantId === tenantId ? staff : undefined;
  }

  function checkApplianceSession(claims: AccessClaims) {
    const session = store.session(claims.session_id);
    const live =
      session?.status === 'active' &&
      session.staff_id === claims.sub &&
      session.expires_at > clock.now().toISOString() &&
      liveStaff(claims.sub) !== undefined;
    if (!live) throw sessionEnded();
  }

  /** The cloud's sessions cannot be checked offline; its tokens are short-lived instead. */
  function checkCloudToken(claims: AccessClaims) {
    if (claims.tenant_id !== tenantId || !liveStaff(claims.sub)) throw notAMember();
  }

  return {
    async pinLogin(input: PinLoginInput) {
      const staff = await checkPin(input);
      if (staff.status !== 'active') throw accountDisabled();
      const accessToken = await openSession(staff);
      return {
        type: 'success' as const,
        access_token: accessToken,
        // The cloud's wire format has this field; the appliance issues no refresh tokens.
        refresh_token: '',
        token_type: 'Bearer' as const,
        expires_in: APPLIANCE_SESSION_TTL_SECONDS,
        user: { id: staff.id, tenant_id: staff.tenantId, email: staff.email, roles: staff.roles },
      };
    },

    /** Verifies a bearer token of either issuer and the state behind it. */
    async authenticate(token: string): Promise<AuthContext> {
      const { issuer, claims } = await tokens.verify(token);
      if (issuer === 'appliance') checkApplianceSession(claims);
      else checkCloudToken(claims);
      return {
        userId: claims.sub,
        tenantId: claims.tenant_id,
        email: claims.email,
        roles: claims.roles,
        sessionId: claims.session_id,
        locationId,
      };
    },

    /** Ends an appliance session (logout); ending it twice answers the ended session. */
    endSession(sessionId: string) {
      const session = store.session(sessionId);
      if (!session) throw cloudSession();
      store.endSession(sessionId, clock.now().toISOString());
      const ended = store.session(sessionId)!;
      const staff = store.staff(ended.staff_id)!;
      return sessionView(ended, staff, locationId);
    },

    profile(staffId: string) {
      const staff = liveStaff(staffId);
      if (!staff) throw sessionEnded();
      return profileOf(staff);
    },

    /** The sign-in screen's tiles: this tenant's active staff who can sign in by PIN. */
    signInStaff: () => store.signInStaff(tenantId).map(tileOf),

    /** Staff names by id for screens that list people; staff not on this appliance are left out. */
    displayNames: (ids: string[]) => store.displayNames(tenantId, ids),

    /** Writes a staff member unless the stored copy is newer; true when written. */
    async upsertStaff(input: StaffInput) {
      const pinHash = input.pin !== undefined ? await hasher.hash(input.pin) : (input.pinHash ?? null);
      return store.upsertStaff({
        id: input.id,
        tenantId: input.tenantId ?? tenantId,
        email: input.email.trim().toLowerCase(),
        username: input.username?.trim().toLowerCase() ?? null,
        displayName: input.displayName,
        roles: input.roles,
        pinHash,
        status: input.status ?? 'active',
        version: input.version,
        updatedAt: input.updatedAt ?? clock.now().toISOString(),
      });
    },

    jwks: () => keys.jwks(),
  };
}

export type StaffAuth = ReturnType<typeof createStaffAuth>;
