import { type Static, type TString, Type } from '@sinclair/typebox';
import { LIMITS } from '../../shared/tenancy.ts';
import type { Page } from './store.ts';

export { LIMITS };

const Uuid = Type.String({ format: 'uuid' });
const Name = Type.String({ minLength: 1, maxLength: LIMITS.nameMax });
const PersonName = Type.String({ maxLength: LIMITS.personNameMax });
const Timestamp = Type.String({ format: 'date-time' });
const Tier = Type.Union([Type.Literal('free'), Type.Literal('professional'), Type.Literal('enterprise')]);
const ActiveOrSuspended = Type.Union([Type.Literal('active'), Type.Literal('suspended')]);
const Password = Type.String({ minLength: LIMITS.password.min, maxLength: LIMITS.password.max });
const Pin = Type.String({ pattern: LIMITS.pinPattern, description: 'exactly 6 digits' });
const Roles = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 20,
  description: 'role names; unknown names are refused',
});
const Timezone = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'IANA time zone, e.g. Europe/Paris',
});
// One JSON-schema type list, not anyOf: with type coercion on, Ajv would turn null into "" in an
// anyOf whose first branch is a string.
const Address = Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 500 });
const Nullable = <T extends TString>(schema: T) => Type.Union([schema, Type.Null()]);

export const PageQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuerySchema>;

export const toPage = (query: PageQuery): Page => ({ limit: query.limit, after: query.cursor });

export const LocationQuerySchema = Type.Composite(
  [PageQuerySchema, Type.Object({ brand_id: Type.Optional(Uuid), region_id: Type.Optional(Uuid) })],
  { additionalProperties: false },
);

/** Paged like every other list: `cursor` is the `next_cursor` of the previous (newer) page. */
export const AuditQuerySchema = Type.Composite(
  [
    PageQuerySchema,
    Type.Object({
      action: Type.Optional(
        Type.String({ minLength: 1, maxLength: 100, description: 'e.g. auth.login_password' }),
      ),
    }),
  ],
  { additionalProperties: false },
);

export const TenantParamsSchema = Type.Object({ tenant_id: Uuid });
export const BrandParamsSchema = Type.Object({ brand_id: Uuid });
export const RegionParamsSchema = Type.Object({ region_id: Uuid });
export const LocationParamsSchema = Type.Object({ location_id: Uuid });
export const UserParamsSchema = Type.Object({ user_id: Uuid });

export const TenantSchema = Type.Object({
  id: Uuid,
  slug: Type.String(),
  name: Type.String(),
  tier: Tier,
  status: ActiveOrSuspended,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const RenameTenantSchema = Type.Object({ name: Name }, { additionalProperties: false });

export const NewTenantSchema = Type.Object(
  {
    slug: Type.String({
      pattern: LIMITS.slugPattern,
      description: 'becomes a host-name label: lower-case letters, digits and inner hyphens, at most 63',
    }),
    name: Name,
    tier: Type.Optional(Tier),
  },
  { additionalProperties: false },
);

export const TenantPatchSchema = Type.Object(
  { name: Type.Optional(Name), tier: Type.Optional(Tier), status: Type.Optional(ActiveOrSuspended) },
  { additionalProperties: false, minProperties: 1 },
);

/** A brand or a region: a named group of the tenant's locations. */
export const GroupSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  name: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const GroupBodySchema = Type.Object({ name: Name }, { additionalProperties: false });

export const LocationSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  brand_id: Uuid,
  region_id: Uuid,
  name: Type.String(),
  timezone: Type.String(),
  address: Nullable(Type.String()),
  status: Type.Union([Type.Literal('active'), Type.Literal('inactive')]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const NewLocationSchema = Type.Object(
  {
    name: Name,
    brand_id: Uuid,
    region_id: Uuid,
    timezone: Type.Optional(Timezone),
    address: Type.Optional(Address),
  },
  { additionalProperties: false },
);

export const LocationPatchSchema = Type.Object(
  {
    name: Type.Optional(Name),
    brand_id: Type.Optional(Uuid),
    region_id: Type.Optional(Uuid),
    timezone: Type.Optional(Timezone),
    address: Type.Optional(Address),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive')])),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** The member as the tenant sees it (`toMember`): whether credentials are set, never their hashes. */
export const MemberSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  email: Type.String(),
  username: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  display_name: Type.String(),
  email_verified: Type.Boolean(),
  roles: Type.Array(Type.String()),
  status: Type.String({ description: 'active or suspended' }),
  has_password: Type.Boolean(),
  has_pin: Type.Boolean(),
  created_at: Timestamp,
});

export const NewUserSchema = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    username: Type.Optional(Type.String({ pattern: LIMITS.usernamePattern })),
    password: Type.Optional(Password),
    pin: Type.Optional(Pin),
    first_name: Type.Optional(PersonName),
    last_name: Type.Optional(PersonName),
    display_name: Type.Optional(PersonName),
    roles: Roles,
  },
  { additionalProperties: false },
);

export const UserPatchSchema = Type.Object(
  {
    roles: Type.Optional(Roles),
    status: Type.Optional(ActiveOrSuspended),
    first_name: Type.Optional(PersonName),
    last_name: Type.Optional(PersonName),
    display_name: Type.Optional(PersonName),
    password: Type.Optional(Password),
    pin: Type.Optional(Pin),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AuditEventSchema = Type.Object({
  id: Uuid,
  tenant_id: Nullable(Type.String()),
  user_id: Nullable(Type.String()),
  action: Type.String(),
  outcome: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
  ip_address: Nullable(Type.String()),
  details: Type.Record(Type.String(), Type.Unknown()),
  created_at: Timestamp,
});
