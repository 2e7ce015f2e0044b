import type { Clock } from '../../shared/clock.ts';
import type { SecretHasher } from '../../shared/identity/secrets.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import { isRole } from '../../shared/roles.ts';
import type { Db, Store } from '../db/index.ts';
import * as errors from './errors.ts';
import {
  createTenancyStore,
  type GroupKind,
  type LocationFilter,
  type MemberRow,
  type Page,
  type TenancyStore,
} from './store.ts';
import type { LocationRow, TenantRow, Tier, UserRow } from './tables.ts';

export interface TenancyDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  hasher: SecretHasher;
  /** Told of every change to a location, inside its transaction (domain events are written there). */
  onLocationChanged?: ((trx: Db, before: LocationRow, after: LocationRow) => Promise<void>) | undefined;
}

export type StaffListener = (trx: Db, staff: StaffRecord) => Promise<void>;

/** A member as the tenant's stores keep them: enough to sign in by PIN offline. */
export interface StaffRecord {
  id: string;
  tenant_id: string;
  email: string;
  username: string | null;
  display_name: string;
  roles: string[];
  pin_hash: string | null;
  status: 'active' | 'disabled';
  updated_at: string;
}

export const toStaffRecord = (row: MemberRow): StaffRecord => ({
  id: row.id,
  tenant_id: row.tenant_id,
  email: row.email,
  username: row.username,
  display_name: row.display_name,
  roles: JSON.parse(row.roles) as string[],
  pin_hash: row.pin_hash,
  status: isActiveMember(row) ? 'active' : 'disabled',
  updated_at: row.updated_at,
});

export interface NewUser {
  email: string;
  username?: string | undefined;
  password?: string | undefined;
  pin?: string | undefined;
  first_name?: string | undefined;
  last_name?: string | undefined;
  display_name?: string | undefined;
  roles: string[];
}

export interface MemberPatch {
  roles?: string[] | undefined;
  status?: 'active' | 'suspended' | undefined;
  first_name?: string | undefined;
  last_name?: string | undefined;
  display_name?: string | undefined;
  password?: string | undefined;
  pin?: string | undefined;
}

export interface NewLocation {
  name: string;
  brand_id: string;
  region_id: string;
  timezone?: string | undefined;
  address?: string | null | undefined;
}

export const toTenant = (row: TenantRow) => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  tier: row.tier,
  status: row.status,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export const toLocation = (row: LocationRow) => ({ ...row });

export const toMember = (row: MemberRow) => ({
  id: row.id,
  tenant_id: row.tenant_id,
  email: row.email,
  username: row.username ?? '',
  first_name: row.first_name,
  last_name: row.last_name,
  display_name: row.display_name,
  email_verified: row.email_verified === 1,
  roles: JSON.parse(row.roles) as string[],
  // A suspended membership bars the user from this tenant even while the account itself is active.
  status: row.status === 'active' && row.membership_status === 'active' ? 'active' : 'suspended',
  has_password: row.password_hash !== null,
  has_pin: row.pin_hash !== null,
  created_at: row.created_at,
});

export type Member = ReturnType<typeof toMember>;

/** Both the account and its membership of the tenant are active. */
export const isActiveMember = (row: MemberRow) =>
  row.status === 'active' && row.membership_status === 'active';

function checkRoles(roles: string[]) {
  const unknown = roles.filter((role) => !isRole(role));
  if (unknown.length > 0) throw errors.invalidRoles(unknown);
  return JSON.stringify([...new Set(roles)]);
}

function checkTimezone(timezone: string) {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw errors.invalidTimezone();
  }
}

const nextCursor = <T extends { id: string }>(rows: T[], limit: number) =>
  rows.length === limit ? (rows.at(-1)?.id ?? null) : null;

/** Tenants, their brands, regions and locations, and who belongs to them with which roles. */
export function createTenancyService({ store, clock, newId, hasher, onLocationChanged }: TenancyDeps) {
  const db = createTenancyStore(store.db, store.prepareRead);
  const now = () => clock.now().toISOString();
  const staffListeners: StaffListener[] = [];

  async function tellStaff(trx: Db, staff: StaffRecord) {
    for (const listener of staffListeners) await listener(trx, staff);
  }

  async function insertOrConflict<T>(work: () => Promise<T>, conflict: () => Error): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (store.isUniqueViolation(error)) throw conflict();
      throw error;
    }
  }

  async function staffChanged(trx: Db, tenantId: string, userId: string) {
    if (staffListeners.length === 0) return;
    const member = await createTenancyStore(trx).member(tenantId, userId);
    if (member) await tellStaff(trx, toStaffRecord(member));
  }

  async function requireTenant(id: string) {
    const tenant = await db.tenantById(id);
    if (!tenant) throw errors.tenantNotFound();
    return tenant;
  }

  async function requireMember(tenantId: string, userId: string) {
    const member = await db.member(tenantId, userId);
    if (!member) throw errors.userNotFound();
    return member;
  }

  async function credentialColumns(input: { password?: string | undefined; pin?: string | undefined }) {
    return {
      ...(input.password !== undefined ? { password_hash: await hasher.hash(input.password) } : {}),
      ...(input.pin !== undefined ? { pin_hash: await hasher.hash(input.pin) } : {}),
    };
  }

  async function createUserRow(tx: TenancyStore, input: NewUser, credentials: Partial<UserRow>, at: string) {
    const id = newId();
    const firstName = input.first_name ?? '';
    const lastName = input.last_name ?? '';
    await tx.insertUser({
      id,
      email: input.email.toLowerCase(),
      username: input.username?.toLowerCase() ?? null,
      first_name: firstName,
      last_name: lastName,
      display_name: input.display_name ?? (`${firstName} ${lastName}`.trim() || input.email),
      password_hash: null,
      pin_hash: null,
      ...credentials,
      email_verified: 0,
      status: 'active',
      created_at: at,
      updated_at: at,
    });
    return id;
  }

  /** Which unique field a failed insert ran into; asked after the transaction, which is dead by then. */
  async function conflictOf(input: NewUser) {
    const username = input.username?.toLowerCase();
    if (username !== undefined && (await db.userByUsername(username))) return errors.usernameTaken();
    return errors.accountExists();
  }

  /**
   * An account shared with other tenants is the person's, not this tenant's: its profile and
   * credentials change only through the operator (`trusted`), never through one tenant's admin.
   */
  async function guardSharedAccount(userId: string, tenantId: string, trusted: boolean) {
    if (trusted) return;
    const memberships = await db.membershipsOfUser(userId);
    if (memberships.some((m) => m.tenant_id !== tenantId)) throw errors.accountShared();
  }

  const touchesAccount = (patch: MemberPatch) =>
    [patch.password, patch.pin, patch.first_name, patch.last_name, patch.display_name].some(
      (v) => v !== undefined,
    );

  return {
    async createTenant(input: { slug: string; name: string; tier?: Tier | undefined }) {
      const at = now();
      const row: TenantRow = {
        id: newId(),
        slug: input.slug,
        name: input.name,
        tier: input.tier ?? 'free',
        status: 'active',
        created_at: at,
        updated_at: at,
      };
      await insertOrConflict(
        () => db.insertTenant(row),
        () => errors.slugTaken(input.slug),
      );
      return toTenant(row);
    },
    getTenant: async (id: string) => toTenant(await requireTenant(id)),
    tenantBySlug: (slug: string) => db.tenantBySlug(slug),
    /** The tier decides the gateway rate limit; undefined for an unknown tenant. */
    tierOf: async (tenantId: string) => (await db.tenantById(tenantId))?.tier,
    async listTenants(page: Page) {
      const rows = await db.listTenants(page);
      return { items: rows.map(toTenant), nextCursor: nextCursor(rows, page.limit) };
    },
    async updateTenant(id: string, patch: { name?: string; tier?: Tier; status?: TenantRow['status'] }) {
      await requireTenant(id);
      await db.updateTenant(id, { ...patch, updated_at: now() });
      return toTenant(await requireTenant(id));
    },

    async createGroup(kind: GroupKind, tenantId: string, name: string) {
      const at = now();
      const row = { id: newId(), tenant_id: tenantId, name, created_at: at, updated_at: at };
      await insertOrConflict(
        () => db.insertGroup(kind, row),
        () => errors.nameTaken('body.name'),
      );
      return row;
    },
    async getGroup(kind: GroupKind, tenantId: string, id: string) {
      const row = await db.group(kind, tenantId, id);
      if (!row) throw errors.groupNotFound(kind);
      return row;
    },
    async listGroups(kind: GroupKind, tenantId: string, page: Page) {
      const rows = await db.listGroups(kind, tenantId, page);
      return { items: rows, nextCursor: nextCursor(rows, page.limit) };
    },
    async renameGroup(kind: GroupKind, tenantId: string, id: string, name: string) {
      const result = await insertOrConflict(
        () => db.updateGroup(kind, tenantId, id, { name, updated_at: now() }),
        () => errors.nameTaken('body.name'),
      );
      if (Number(result.numUpdatedRows) === 0) throw errors.groupNotFound(kind);
      return (await db.group(kind, tenantId, id))!;
    },
    async deleteGroup(kind: GroupKind, tenantId: string, id: string) {
      if (!(await db.group(kind, tenantId, id))) throw errors.groupNotFound(kind);
      if ((await db.countLocationsIn(kind, tenantId, id)) > 0) throw errors.groupInUse();
      await db.deleteGroup(kind, tenantId, id);
    },

    async createLocation(tenantId: string, input: NewLocation) {
      if (!(await db.group('brands', tenantId, input.brand_id)))
        throw errors.brandOrRegionMissing('body.brand_id');
      if (!(await db.group('regions', tenantId, input.region_id)))
        throw errors.brandOrRegionMissing('body.region_id');
      const timezone = input.timezone ?? 'UTC';
      checkTimezone(timezone);
      const at = now();
      const row: LocationRow = {
        id: newId(),
        tenant_id: tenantId,
        brand_id: input.brand_id,
        region_id: input.region_id,
        name: input.name,
        timezone,
        address: input.address ?? null,
        status: 'active',
        created_at: at,
        updated_at: at,
      };
      await insertOrConflict(
        () => db.insertLocation(row),
        () => errors.nameTaken('body.name'),
      );
      return toLocation(row);
    },
    async getLocation(tenantId: string, id: string) {
      const row = await db.location(tenantId, id);
      if (!row) throw errors.locationNotFound();
      return toLocation(row);
    },
    /** For callers that only need to know whether a location exists in the tenant. */
    findLocation: (tenantId: string, id: string) => db.location(tenantId, id),
    /** The same, read on the caller's transaction (SQLite has one connection, which it may hold). */
    findLocationIn: (trx: Db, tenantId: string, id: string) => createTenancyStore(trx).location(tenantId, id),
    async listLocations(tenantId: string, page: Page, filter: LocationFilter = {}) {
      const rows = await db.listLocations(tenantId, page, filter);
      return { items: rows.map(toLocation), nextCursor: nextCursor(rows, page.limit) };
    },
    async updateLocation(
      tenantId: string,
      id: string,
      patch: Partial<NewLocation> & { status?: LocationRow['status'] },
    ) {
      if (!(await db.location(tenantId, id))) throw errors.locationNotFound();
      if (patch.brand_id && !(await db.group('brands', tenantId, patch.brand_id)))
        throw errors.brandOrRegionMissing('body.brand_id');
      if (patch.region_id && !(await db.group('regions', tenantId, patch.region_id)))
        throw errors.brandOrRegionMissing('body.region_id');
      if (patch.timezone) checkTimezone(patch.timezone);
      const after = await insertOrConflict(
        () =>
          store.db.transaction().execute(async (trx) => {
            const tx = createTenancyStore(trx);
            const before = (await tx.location(tenantId, id))!;
            await tx.updateLocation(tenantId, id, { ...patch, updated_at: now() });
            const changed = (await tx.location(tenantId, id))!;
            await onLocationChanged?.(trx, before, changed);
            return changed;
          }),
        () => errors.nameTaken('body.name'),
      );
      return toLocation(after);
    },

    /**
     * Adds a person to a tenant: a new account, or an existing one (same email) gaining a membership.
     * `trusted` (the operator CLI) may set credentials on an account other tenants share.
     */
    async addUser(tenantId: string, input: NewUser, options: { trusted?: boolean } = {}) {
      await requireTenant(tenantId);
      const roles = checkRoles(input.roles);
      const at = now();
      const existing = await db.userByEmail(input.email.toLowerCase());
      if (existing && (await db.membership(tenantId, existing.id))) throw errors.alreadyMember();
      // A tenant admin could otherwise claim anyone's account by email and read its profile.
      if (existing && options.trusted !== true) throw errors.accountExists();
      const credentials = await credentialColumns(input);
      let userId: string;
      try {
        userId = await store.db.transaction().execute(async (trx) => {
          const tx = createTenancyStore(trx);
          const id = existing?.id ?? (await createUserRow(tx, input, credentials, at));
          if (existing && Object.keys(credentials).length > 0)
            await tx.updateUser(id, { ...credentials, updated_at: at });
          await tx.insertMembership({
            tenant_id: tenantId,
            user_id: id,
            roles,
            status: 'active',
            created_at: at,
            updated_at: at,
          });
          await staffChanged(trx, tenantId, id);
          return id;
        });
      } catch (error) {
        if (!store.isUniqueViolation(error)) throw error;
        throw await conflictOf(input);
      }
      return toMember(await requireMember(tenantId, userId));
    },
    getMember: async (tenantId: string, userId: string) => toMember(await requireMember(tenantId, userId)),
    /** The member's row when the account, the membership and the tenant are all active. */
    async activeMember(tenantId: string, userId: string) {
      const member = await db.member(tenantId, userId);
      if (!member || !isActiveMember(member)) return undefined;
      return (await db.tenantById(tenantId))?.status === 'active' ? member : undefined;
    },
    /** The member's row with credential hashes, for identity; undefined when not a member. */
    findMember: (tenantId: string, userId: string) => db.member(tenantId, userId),
    async listMembers(tenantId: string, page: Page) {
      const rows = await db.listMembers(tenantId, page);
      return { items: rows.map(toMember), nextCursor: nextCursor(rows, page.limit) };
    },
    async updateMember(
      tenantId: string,
      userId: string,
      patch: MemberPatch,
      options: { trusted?: boolean } = {},
    ) {
      await requireMember(tenantId, userId);
      const roles = patch.roles !== undefined ? checkRoles(patch.roles) : undefined;
      if (touchesAccount(patch)) await guardSharedAccount(userId, tenantId, options.trusted === true);
      const credentials = await credentialColumns(patch);
      const at = now();
      const { first_name, last_name, display_name, status } = patch;
      await store.db.transaction().execute(async (trx) => {
        const tx = createTenancyStore(trx);
        if (roles !== undefined || status !== undefined)
          await tx.updateMembership(tenantId, userId, { roles, status, updated_at: at });
        if (touchesAccount(patch))
          await tx.updateUser(userId, {
            first_name,
            last_name,
            display_name,
            ...credentials,
            updated_at: at,
          });
        // Every tenant sharing the account sees a profile or PIN change.
        const tenants = touchesAccount(patch)
          ? (await tx.membershipsOfUser(userId)).map((m) => m.tenant_id)
          : [tenantId];
        for (const tenant of tenants) await staffChanged(trx, tenant, userId);
      });
      return toMember(await requireMember(tenantId, userId));
    },
    async removeMember(tenantId: string, userId: string) {
      await store.db.transaction().execute(async (trx) => {
        const tx = createTenancyStore(trx);
        const member = await tx.member(tenantId, userId);
        const result = await tx.deleteMembership(tenantId, userId);
        if (!member || Number(result.numDeletedRows) === 0) throw errors.userNotFound();
        // The stores keep the person, disabled, so their sessions end and their PIN stops working.
        await tellStaff(trx, { ...toStaffRecord(member), status: 'disabled', updated_at: now() });
      });
    },
    /**
     * Tells `listener` of every change to a member, inside the transaction that made it, so the
     * stores' copies of staff and PIN hashes (sync) can never miss one.
     */
    onStaffChanged(listener: StaffListener) {
      staffListeners.push(listener);
    },
    /** The tenant's members as its stores keep them (a new store's first snapshot). */
    staffRecords: async (tenantId: string) => (await db.allMembers(tenantId)).map(toStaffRecord),

    /** Login lookup: an identifier is an email or a username. */
    async findAccount(identifier: string) {
      const normalized = identifier.trim().toLowerCase();
      return normalized.includes('@') ? db.userByEmail(normalized) : db.userByUsername(normalized);
    },
    membershipsOf: (userId: string) => db.membershipsOfUser(userId),
    accountById: (userId: string) => db.userById(userId),
  };
}

export type TenancyService = ReturnType<typeof createTenancyService>;
