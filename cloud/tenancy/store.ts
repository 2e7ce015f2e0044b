import { sql } from 'kysely';
import { createBatchLoader, type Db, keyedRead, kyselyRead, type PrepareRead } from '../db/index.ts';
import type { GroupRow, LocationRow, MembershipRow, TenantRow, UserRow } from './tables.ts';

/** Brands and regions have the same shape: named groups of a tenant's locations. */
export type GroupKind = 'brands' | 'regions';

export interface Page {
  limit: number;
  /** The last id of the previous page; ids are UUIDv7, so id order is creation order. */
  after?: string | undefined;
}

export interface LocationFilter {
  brandId?: string | undefined;
  regionId?: string | undefined;
  /** Part of the name, matched regardless of case (ASCII letters on SQLite, all letters on PostgreSQL). */
  nameContains?: string | undefined;
  /** Only these locations. */
  ids?: readonly string[] | undefined;
  /** None of these locations. */
  notIds?: readonly string[] | undefined;
}

/** `lower(name) like lower('%part%')`, the part's own `%`, `_` and `\` taken literally. */
const nameContains = (part: string) =>
  sql<boolean>`lower(name) like lower(${`%${part.replace(/[\\%_]/g, '\\$&')}%`}) escape '\\'`;

/** `id in (...)`; no ids matches nothing (an empty list is not valid SQL). */
const idIn = (ids: readonly string[]) =>
  ids.length === 0 ? sql<boolean>`1 = 0` : sql<boolean>`id in (${sql.join(ids)})`;

export type MemberRow = UserRow & Pick<MembershipRow, 'roles' | 'tenant_id'> & { membership_status: string };

/** Every query that reads tenant data takes the tenant first; nothing here crosses tenants. */
const memberQuery = (db: Db) =>
  db
    .selectFrom('users')
    .innerJoin('memberships', 'memberships.user_id', 'users.id')
    .selectAll('users')
    .select(['memberships.roles', 'memberships.tenant_id', 'memberships.status as membership_status']);

export function createTenancyStore(db: Db, prepareRead: PrepareRead = kyselyRead(db)) {
  // On the path of every profile and refresh: prepared once per batch size, and the lookups of
  // one event-loop turn share a read.
  const readMembers = keyedRead(prepareRead, (size) =>
    memberQuery(db)
      .where((eb) =>
        eb(
          eb.refTuple('memberships.tenant_id', 'users.id'),
          'in',
          Array.from({ length: size }, () => eb.tuple('', '')),
        ),
      )
      .compile(),
  );
  // A pair as one key that no id can break apart, whatever characters a caller's id holds.
  const memberKey = (tenantId: string, userId: string) => JSON.stringify([tenantId, userId]);
  const memberByKey = createBatchLoader({
    load: (keys) => readMembers(keys.map((key) => JSON.parse(key) as [string, string])),
    keyOf: (row: MemberRow) => memberKey(row.tenant_id, row.id),
  });
  return {
    insertTenant: (row: TenantRow) => db.insertInto('tenants').values(row).execute(),
    tenantById: (id: string) => db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst(),
    tenantBySlug: (slug: string) =>
      db.selectFrom('tenants').selectAll().where('slug', '=', slug).executeTakeFirst(),
    listTenants: (page: Page) =>
      db
        .selectFrom('tenants')
        .selectAll()
        .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
        .orderBy('id')
        .limit(page.limit)
        .execute(),
    updateTenant: (id: string, patch: Partial<Pick<TenantRow, 'name' | 'tier' | 'status' | 'updated_at'>>) =>
      db.updateTable('tenants').set(patch).where('id', '=', id).executeTakeFirst(),

    insertGroup: (kind: GroupKind, row: GroupRow) => db.insertInto(kind).values(row).execute(),
    group: (kind: GroupKind, tenantId: string, id: string) =>
      db
        .selectFrom(kind)
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    listGroups: (kind: GroupKind, tenantId: string, page: Page) =>
      db
        .selectFrom(kind)
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
        .orderBy('id')
        .limit(page.limit)
        .execute(),
    updateGroup: (
      kind: GroupKind,
      tenantId: string,
      id: string,
      patch: Pick<GroupRow, 'name' | 'updated_at'>,
    ) =>
      db
        .updateTable(kind)
        .set(patch)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    deleteGroup: (kind: GroupKind, tenantId: string, id: string) =>
      db.deleteFrom(kind).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
    countLocationsIn: async (kind: GroupKind, tenantId: string, id: string) => {
      const column = kind === 'brands' ? 'brand_id' : 'region_id';
      const row = await db
        .selectFrom('locations')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('tenant_id', '=', tenantId)
        .where(column, '=', id)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    insertLocation: (row: LocationRow) => db.insertInto('locations').values(row).execute(),
    location: (tenantId: string, id: string) =>
      db
        .selectFrom('locations')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    listLocations: (tenantId: string, page: Page, filter: LocationFilter = {}) =>
      db
        .selectFrom('locations')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(filter.brandId !== undefined, (q) => q.where('brand_id', '=', filter.brandId!))
        .$if(filter.regionId !== undefined, (q) => q.where('region_id', '=', filter.regionId!))
        .$if(filter.nameContains !== undefined, (q) => q.where(nameContains(filter.nameContains!)))
        .$if(filter.ids !== undefined, (q) => q.where(idIn(filter.ids!)))
        .$if(filter.notIds !== undefined && filter.notIds.length > 0, (q) =>
          q.where('id', 'not in', filter.notIds!),
        )
        .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
        .orderBy('id')
        .limit(page.limit)
        .execute(),
    updateLocation: (tenantId: string, id: string, patch: Partial<Omit<LocationRow, 'id' | 'tenant_id'>>) =>
      db
        .updateTable('locations')
        .set(patch)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),

    insertUser: (row: UserRow) => db.insertInto('users').values(row).execute(),
    userById: (id: string) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),
    userByEmail: (email: string) =>
      db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst(),
    userByUsername: (username: string) =>
      db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst(),
    updateUser: (id: string, patch: Partial<Omit<UserRow, 'id' | 'created_at'>>) =>
      db.updateTable('users').set(patch).where('id', '=', id).executeTakeFirst(),

    insertMembership: (row: MembershipRow) => db.insertInto('memberships').values(row).execute(),
    membership: (tenantId: string, userId: string) =>
      db
        .selectFrom('memberships')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('user_id', '=', userId)
        .executeTakeFirst(),
    membershipsOfUser: (userId: string) =>
      db
        .selectFrom('memberships')
        .innerJoin('tenants', 'tenants.id', 'memberships.tenant_id')
        .select(['memberships.tenant_id', 'memberships.roles', 'memberships.status', 'tenants.slug'])
        .where('memberships.user_id', '=', userId)
        .execute(),
    member: (tenantId: string, userId: string) => memberByKey(memberKey(tenantId, userId)),
    allMembers: (tenantId: string) =>
      memberQuery(db).where('memberships.tenant_id', '=', tenantId).orderBy('users.id').execute() as Promise<
        MemberRow[]
      >,
    listMembers: (tenantId: string, page: Page) =>
      memberQuery(db)
        .where('memberships.tenant_id', '=', tenantId)
        .$if(page.after !== undefined, (q) => q.where('users.id', '>', page.after!))
        .orderBy('users.id')
        .limit(page.limit)
        .execute() as Promise<MemberRow[]>,
    updateMembership: (
      tenantId: string,
      userId: string,
      patch: Partial<Pick<MembershipRow, 'roles' | 'status' | 'updated_at'>>,
    ) =>
      db
        .updateTable('memberships')
        .set(patch)
        .where('tenant_id', '=', tenantId)
        .where('user_id', '=', userId)
        .executeTakeFirst(),
    deleteMembership: (tenantId: string, userId: string) =>
      db
        .deleteFrom('memberships')
        .where('tenant_id', '=', tenantId)
        .where('user_id', '=', userId)
        .executeTakeFirst(),
  };
}

export type TenancyStore = ReturnType<typeof createTenancyStore>;
