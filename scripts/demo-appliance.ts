/**
 * The demo store's appliance for `npm start`: its staff come from the cloud's demo tenant (so
 * cloud tokens work there too, and PINs before the first sync). Its menu, stock and kitchen are
 * not seeded here: they come from head office by sync (scripts/demo-menu.ts), as a new store's do.
 */
import { createApplianceServices } from '../appliance/app.ts';
import type { ApplianceConfig } from '../appliance/config.ts';
import { openApplianceDb } from '../appliance/db/index.ts';
import { systemClock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';

export interface DemoStaff {
  id: string;
  email: string;
  username: string | null;
  display_name: string;
  roles: string;
  pin_hash: string | null;
}

export async function seedDemoAppliance(config: ApplianceConfig, staff: DemoStaff[]) {
  const db = openApplianceDb(config.dataDir);
  try {
    const services = createApplianceServices(config, { db, clock: systemClock, newId });
    for (const member of staff) {
      await services.auth.upsertStaff({
        id: member.id,
        email: member.email,
        username: member.username,
        displayName: member.display_name,
        roles: JSON.parse(member.roles) as string[],
        pinHash: member.pin_hash,
        version: 1,
      });
    }
  } finally {
    db.close();
  }
}
