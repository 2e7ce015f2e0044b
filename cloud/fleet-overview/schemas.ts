import { type Static, type TSchema, Type } from '@sinclair/typebox';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

/** The largest page: a console takes a few hundred stores in one request. */
export const MAX_PAGE = 500;

export const StoreQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
    brand_id: Type.Optional({ ...Uuid, description: 'Only this brand’s stores' }),
    region_id: Type.Optional({ ...Uuid, description: 'Only this region’s stores' }),
    status: Type.Optional(
      Type.Union([Type.Literal('online'), Type.Literal('offline')], {
        description:
          'Only stores whose appliance is online (heard from within 90 seconds), or only the others',
      }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only stores whose name contains this, regardless of case',
      }),
    ),
  },
  { additionalProperties: false },
);
export type StoreQuery = Static<typeof StoreQuerySchema>;

export const StoreParamsSchema = Type.Object({ location_id: Uuid });

const CameraSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: Type.Union([Type.Literal('online'), Type.Literal('offline')], {
    description: 'As the store’s camera pipeline last synced it',
  }),
  fps: Type.Number({ description: 'Frames per second its pipeline processed when last synced' }),
});

const storeFields = {
  location_id: Uuid,
  name: Type.String(),
  brand_id: Uuid,
  region_id: Uuid,
  timezone: Type.String({ description: 'IANA time zone of the store' }),
  online: Type.Boolean({ description: 'The store’s appliance was heard from within the last 90 seconds' }),
  last_seen_at: Nullable(Timestamp, 'Last push, pull or open wait of the appliance; null: never heard from'),
  last_push_at: Nullable(Timestamp, 'Last push of the store’s changes; null: never pushed'),
  last_pull_at: Nullable(Timestamp, 'Last pull that reached the end of the cloud’s feed; null: never'),
  queue_depth: Nullable(
    Type.Integer(),
    'Changes waiting on the appliance, as it last reported; null: the appliance was never heard from',
  ),
  oldest_pending_at: Nullable(Timestamp, 'The oldest change waiting on the appliance; null: none waits'),
  lag_seconds: Nullable(
    Type.Integer(),
    'Age of the oldest change the appliance has not pushed yet (0 when none waits); null: never heard from',
  ),
  conflict_rate: Type.Number({ description: 'conflicts_24h / changes_24h; 0 without changes' }),
  conflicts_24h: Type.Integer({ description: 'Changes the cloud settled server_wins in the last 24 hours' }),
  changes_24h: Type.Integer({ description: 'Changes the store pushed in the last 24 hours' }),
  devices_total: Type.Integer({ description: 'Devices registered at the store in MDM, not revoked' }),
  devices_offline: Type.Integer({
    description: 'Of those, the ones the store’s broker or the fleet link last reported offline',
  }),
  cameras: Type.Array(CameraSchema, { description: 'The cameras the store’s vision pipeline synced' }),
  certificates_expiring_30d: Type.Integer({
    description: 'Live certificates of the store’s devices that run out within the next 30 days',
  }),
  appliance_version: Nullable(
    Type.String(),
    'The software version the store’s enrolled appliance last reported (what a rollout starts from); null: the store has no appliance enrolled in MDM, or it never reported one',
  ),
};

export const StoreSchema = Type.Object(storeFields);
export type Store = Static<typeof StoreSchema>;

export const StoreDetailSchema = Type.Object({
  ...storeFields,
  address: Nullable(Type.String(), 'As the tenant recorded it'),
  location_status: Type.Union([Type.Literal('active'), Type.Literal('inactive')], {
    description: 'The location’s own status in the tenant (an inactive store is left out of rollouts)',
  }),
  feed_seq: Type.Integer({ description: 'The cloud’s newest change for the store' }),
  pulled_cursor: Type.Integer({ description: 'How far the store has pulled the cloud’s changes' }),
  pending_down: Type.Integer({ description: 'Cloud changes the store has not pulled yet' }),
  trigger_pending: Type.Boolean({ description: 'A sync the cloud asked for has not been taken up yet' }),
});
export type StoreDetail = Static<typeof StoreDetailSchema>;
