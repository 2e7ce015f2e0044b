import type { Tier } from '../../shared/tenancy.ts';

export { TIERS, type Tier } from '../../shared/tenancy.ts';

export interface TenantRow {
  id: string;
  slug: string;
  name: string;
  tier: Tier;
  status: 'active' | 'suspended';
  created_at: string;
  updated_at: string;
}

export interface GroupRow {
  id: string;
  tenant_id: string;
  name: string;
  created_at: string;
  updated_at: string;
}

export interface LocationRow {
  id: string;
  tenant_id: string;
  brand_id: string;
  region_id: string;
  name: string;
  timezone: string;
  address: string | null;
  status: 'active' | 'inactive';
  created_at: string;
  updated_at: string;
}

export interface UserRow {
  id: string;
  email: string;
  username: string | null;
  first_name: string;
  last_name: string;
  display_name: string;
  password_hash: string | null;
  pin_hash: string | null;
  email_verified: number;
  status: 'active' | 'disabled';
  created_at: string;
  updated_at: string;
}

export interface MembershipRow {
  tenant_id: string;
  user_id: string;
  /** JSON array of role names. */
  roles: string;
  status: 'active' | 'suspended';
  created_at: string;
  updated_at: string;
}

export interface TenancyTables {
  tenants: TenantRow;
  brands: GroupRow;
  regions: GroupRow;
  locations: LocationRow;
  users: UserRow;
  memberships: MembershipRow;
}
