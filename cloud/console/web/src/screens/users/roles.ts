/**
 * The role names the cloud accepts. The API's schema takes any string and refuses unknown names,
 * without listing them; these are the names the documentation gives each area's rules in.
 */
export interface RoleInfo {
  name: string;
  label: string;
  description: string;
}

export const ROLES: RoleInfo[] = [
  {
    name: 'tenant_admin',
    label: 'Tenant admin',
    description: 'Everything in this tenant: users, stores, devices, releases, webhooks',
  },
  {
    name: 'platform_admin',
    label: 'Platform admin',
    description: 'Administers the tenant and rotates the fleet’s update key',
  },
  {
    name: 'super_admin',
    label: 'Super admin',
    description: 'Every route of every area, like the platform roles',
  },
  {
    name: 'system_admin',
    label: 'System admin',
    description: 'The platform operator: reaches every tenant. Only a system admin may grant it',
  },
  {
    name: 'manager',
    label: 'Manager',
    description: 'Runs stores: voids, refunds, prices, time punches; reads devices and releases',
  },
  { name: 'restaurant_manager', label: 'Restaurant manager', description: 'As manager' },
  { name: 'billing_admin', label: 'Billing admin', description: 'Billing and invoices' },
  { name: 'finance', label: 'Finance', description: 'Billing and the P&L reports' },
  {
    name: 'cockpit_operator',
    label: 'Cockpit operator',
    description: 'The operations cockpit and its live feed',
  },
  { name: 'staff', label: 'Staff', description: 'Store staff: signs in at the store’s terminals with a PIN' },
];

/** The roles /v1/platform admits: losing the last of them locks an admin out of this screen. */
export const ADMIN_ROLES = ['platform_admin', 'tenant_admin', 'system_admin'];

export const isAdmin = (roles: string[]) => roles.some((role) => ADMIN_ROLES.includes(role));

export const roleLabel = (name: string) => ROLES.find((role) => role.name === name)?.label ?? name;
