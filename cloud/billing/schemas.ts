import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { MAX_MINOR_UNITS } from '../../shared/http/numbers.ts';
import { ISO_4217_CODES } from './currencies.ts';
import { ADDON_TYPES, DISCOUNT_DURATIONS, DISCOUNT_TYPES, SUBSCRIPTION_STATUSES } from './tables.ts';

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const Literals = <T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
export const Text = (min: number, max: number) => Type.String({ minLength: min, maxLength: max });
export const Currency = Type.Unsafe<string>({
  type: 'string',
  enum: [...ISO_4217_CODES],
  description: 'ISO 4217 code: three upper-case letters of an existing currency',
});
/** Money in cents, up to the bound every amount of the product shares. */
export const Cents = (minimum: number) => Type.Integer({ minimum, maximum: MAX_MINOR_UNITS });
export const Limit = Type.Integer({ minimum: 1, maximum: 1000, default: 100 });
export const strict = { additionalProperties: false } as const;

export const BillingErrorSchema = Type.Object(
  { error: Type.String(), message: Type.String() },
  {
    description:
      'The billing error form: validation_error (400), missing_tenant / unauthorized (401), forbidden (403), not_found (404), conflict / invalid_state / discount_not_applicable / addon_inactive (409), upstream_error (502)',
  },
);
export const billingErrors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, BillingErrorSchema]));

export const ListOf = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item) });

// Subscriptions

export const SubscriptionParamsSchema = Type.Object({ subscription_id: Uuid });
export const SubscriptionStatusSchema = Literals(SUBSCRIPTION_STATUSES);

export const NewSubscriptionSchema = Type.Object(
  {
    plan_id: Uuid,
    processor_subscription_id: Text(1, 255),
    current_period_end: Timestamp,
    status: SubscriptionStatusSchema,
    cancel_at_period_end: Type.Optional(Type.Boolean({ default: false })),
  },
  strict,
);
export type NewSubscription = Static<typeof NewSubscriptionSchema>;

export const SubscriptionPatchSchema = Type.Object(
  {
    current_period_end: Type.Optional(Timestamp),
    status: Type.Optional(SubscriptionStatusSchema),
    plan_id: Type.Optional(Uuid),
    cancel_at_period_end: Type.Optional(Type.Boolean()),
  },
  strict,
);
export type SubscriptionPatch = Static<typeof SubscriptionPatchSchema>;

export const SubscriptionSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  plan_id: Uuid,
  processor_subscription_id: Type.String(),
  status: SubscriptionStatusSchema,
  current_period_end: Timestamp,
  cancel_at_period_end: Type.Boolean(),
  discount_id: Nullable(Uuid),
  discount_applied_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});

// Add-ons

export const AddonParamsSchema = Type.Object({ addon_id: Uuid });
export const SubscriptionAddonParamsSchema = Type.Object({ subscription_id: Uuid, addon_id: Uuid });
export const ActiveOnlyQuerySchema = Type.Object({ active_only: Type.Boolean({ default: false }) }, strict);
const MetadataJson = Type.String({ maxLength: 65_536, description: 'JSON text' });

export const NewAddonSchema = Type.Object(
  {
    name: Text(1, 255),
    description: Type.Optional(Text(0, 1000)),
    addon_type: Literals(ADDON_TYPES),
    price_cents: Cents(0),
    currency: Currency,
    processor_price_id: Type.Optional(Text(1, 255)),
    metadata_json: Type.Optional(MetadataJson),
  },
  strict,
);
export type NewAddon = Static<typeof NewAddonSchema>;

export const AddonPatchSchema = Type.Object(
  {
    name: Type.Optional(Text(1, 255)),
    description: Type.Optional(Text(0, 1000)),
    price_cents: Type.Optional(Cents(0)),
    processor_price_id: Type.Optional(Text(1, 255)),
    is_active: Type.Optional(Type.Boolean()),
    metadata_json: Type.Optional(MetadataJson),
  },
  strict,
);
export type AddonPatch = Static<typeof AddonPatchSchema>;

export const AddonSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  addon_type: Literals(ADDON_TYPES),
  price_cents: Type.Integer(),
  currency: Type.String(),
  processor_price_id: Nullable(Type.String()),
  metadata_json: Nullable(Type.String()),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const NewSubscriptionAddonSchema = Type.Object(
  { addon_id: Uuid, quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }) },
  strict,
);

export const SubscriptionAddonSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  subscription_id: Uuid,
  addon_id: Uuid,
  quantity: Type.Integer(),
  addon: Type.Object(
    {
      name: Type.String(),
      addon_type: Literals(ADDON_TYPES),
      price_cents: Type.Integer(),
      currency: Type.String(),
      is_active: Type.Boolean(),
    },
    { description: 'the add-on as it is now' },
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
});

// Discounts

export const DiscountParamsSchema = Type.Object({ discount_id: Uuid });
export const DiscountCode = Text(1, 100);

export const NewDiscountSchema = Type.Object(
  {
    code: DiscountCode,
    name: Text(1, 255),
    description: Type.Optional(Text(0, 1000)),
    discount_type: Literals(DISCOUNT_TYPES),
    discount_value: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'percentage: a percent from 1 to 100; fixed_amount: cents',
    }),
    duration: Literals(DISCOUNT_DURATIONS),
    duration_months: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1200,
        description: 'with duration repeating only, and required there',
      }),
    ),
    max_redemptions: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
    valid_from: Timestamp,
    valid_to: Type.Optional(Timestamp),
    applies_to_plan_ids: Type.Optional(Type.Array(Uuid, { maxItems: 1000, uniqueItems: true })),
    processor_coupon_id: Type.Optional(Text(1, 255)),
  },
  strict,
);
export type NewDiscount = Static<typeof NewDiscountSchema>;

export const DiscountPatchSchema = Type.Object(
  {
    name: Type.Optional(Text(1, 255)),
    description: Type.Optional(Text(0, 1000)),
    max_redemptions: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
    valid_to: Type.Optional(Timestamp),
    is_active: Type.Optional(Type.Boolean()),
  },
  strict,
);
export type DiscountPatch = Static<typeof DiscountPatchSchema>;

export const DiscountSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  code: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  discount_type: Literals(DISCOUNT_TYPES),
  discount_value: Type.Integer(),
  duration: Literals(DISCOUNT_DURATIONS),
  duration_months: Nullable(Type.Integer()),
  max_redemptions: Nullable(Type.Integer()),
  times_redeemed: Type.Integer({ description: 'attachments to subscriptions so far' }),
  valid_from: Timestamp,
  valid_to: Nullable(Timestamp),
  applies_to_plan_ids: Nullable(Type.Array(Uuid, { description: 'null: every plan' })),
  processor_coupon_id: Nullable(Type.String()),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ByCodeQuerySchema = Type.Object({ code: DiscountCode }, strict);

export const ValidateDiscountSchema = Type.Object(
  {
    code: DiscountCode,
    plan_id: Type.Optional(Uuid),
    cart_total_cents: Cents(0),
  },
  strict,
);
export type ValidateDiscountBody = Static<typeof ValidateDiscountSchema>;

export const INVALID_REASONS = [
  'not_found',
  'inactive',
  'not_yet_valid',
  'expired',
  'max_redemptions_reached',
  'plan_not_eligible',
] as const;
export type InvalidReason = (typeof INVALID_REASONS)[number];

export const DiscountValidationSchema = Type.Object({
  valid: Type.Boolean(),
  reason: Nullable(Literals(INVALID_REASONS, { description: 'why not; null when valid' })),
  message: Type.String(),
  code: Type.String(),
  discount_id: Nullable(Uuid),
  discount_type: Nullable(Literals(DISCOUNT_TYPES)),
  discount_value: Nullable(Type.Integer()),
  cart_total_cents: Type.Integer(),
  discount_cents: Type.Integer({ description: '0 when not valid; never more than the cart' }),
  final_total_cents: Type.Integer({ description: 'cart_total_cents - discount_cents, never below 0' }),
});

export const AttachDiscountSchema = Type.Object({ discount_code: DiscountCode }, strict);
