/** Role names of the public API; a user holds a set of them per tenant. */
export const ROLES = [
  'manager',
  'restaurant_manager',
  'tenant_admin',
  'platform_admin',
  'system_admin',
  'super_admin',
  'billing_admin',
  'finance',
  'cockpit_operator',
  'staff',
] as const;

export type Role = (typeof ROLES)[number];

/** Who may void, refund, change prices and correct punches in a store: managers and above. */
export const MANAGER_ROLES: readonly Role[] = [
  'manager',
  'restaurant_manager',
  'tenant_admin',
  'platform_admin',
  'system_admin',
  'super_admin',
];

/** The gateway's rule for /v1/platform/*. */
export const PLATFORM_ADMIN_ROLES: readonly Role[] = ['platform_admin', 'tenant_admin', 'system_admin'];

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);
