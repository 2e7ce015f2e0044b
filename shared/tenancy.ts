/**
 * What the platform API accepts for tenants and their people: the tiers and the fields' limits.
 * The API's schemas are built from them, and its clients check against the same ones before they
 * send (the operator CLI reads them without loading the tenancy module it will drive).
 */
export const TIERS = ['free', 'professional', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

/** The rules for what tenancy accepts; the operator CLI checks its flags against the same ones. */
export const LIMITS = {
  slugPattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$',
  // Login reads an identifier containing "@" as an email, so a username must not have one.
  usernamePattern: '^[a-zA-Z0-9._-]{2,64}$',
  pinPattern: '^[0-9]{6}$',
  password: { min: 8, max: 256 },
  nameMax: 120,
  personNameMax: 100,
} as const;
