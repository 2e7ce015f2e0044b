/**
 * Staff reach the stores: every change tenancy makes to a member is published to the tenant's
 * appliances in the same transaction (their PIN logins work offline from these copies), and a new
 * store's first snapshot takes the tenant's whole staff.
 */
import type { SyncService } from '../sync/index.ts';
import type { TenancyService } from '../tenancy/index.ts';

export function linkStaffSync(tenancy: TenancyService, sync: SyncService) {
  tenancy.onStaffChanged((trx, staff) => sync.publishStaff(trx, staff));
}

export const staffOf = (tenancy: TenancyService) => (tenantId: string) => tenancy.staffRecords(tenantId);
