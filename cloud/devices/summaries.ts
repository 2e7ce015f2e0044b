/** The registry's word on whole stores, for an overview of the fleet: a few queries for any number of stores. */
import type { DeviceContext } from './context.ts';
import { deviceCounts, enrolledAppliances, expiringCertificateCounts } from './store-summaries.ts';

/** Certificates that run out within this many days count as expiring. */
export const EXPIRING_DAYS = 30;

export interface StoreDeviceSummary {
  devices_total: number;
  devices_offline: number;
  certificates_expiring: number;
  /** The firmware the store's appliance last reported; null without an enrolled appliance or a report. */
  appliance_version: string | null;
}

const EMPTY: StoreDeviceSummary = {
  devices_total: 0,
  devices_offline: 0,
  certificates_expiring: 0,
  appliance_version: null,
};

export function createSummaries(context: DeviceContext) {
  const db = context.store.db;
  return {
    /**
     * Each store's devices, expiring certificates and appliance version, by location id. The
     * store's appliance is the one enrolled last, as a rollout takes it.
     */
    async storeSummaries(tenantId: string, locationIds: readonly string[]) {
      const summaries = new Map(locationIds.map((id) => [id, { ...EMPTY }]));
      if (locationIds.length === 0) return summaries;
      const now = context.clock.now();
      const window = {
        from: now.toISOString(),
        until: new Date(now.getTime() + EXPIRING_DAYS * 86_400_000).toISOString(),
      };
      const [counts, expiring, appliances] = await Promise.all([
        deviceCounts(db, tenantId, locationIds),
        expiringCertificateCounts(db, tenantId, locationIds, window),
        enrolledAppliances(db, tenantId, locationIds),
      ]);
      const patch = (locationId: string, values: Partial<StoreDeviceSummary>) => {
        const summary = summaries.get(locationId);
        if (summary) Object.assign(summary, values);
      };
      for (const row of counts)
        patch(row.location_id, {
          devices_total: Number(row.total),
          devices_offline: Number(row.offline ?? 0),
        });
      for (const row of expiring) patch(row.location_id, { certificates_expiring: Number(row.expiring) });
      const newest = new Map<string, { enrolled_at: string | null; firmware_version: string | null }>();
      for (const row of appliances) {
        const held = newest.get(row.location_id);
        if (!held || (held.enrolled_at ?? '') < (row.enrolled_at ?? '')) newest.set(row.location_id, row);
      }
      for (const [locationId, appliance] of newest)
        patch(locationId, { appliance_version: appliance.firmware_version });
      return summaries;
    },
  };
}
