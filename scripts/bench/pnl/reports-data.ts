/**
 * One year of a chain's data for the P&L reports benchmark, written through the same rollup
 * functions the sync observers call (cloud/pnl/rollup.ts), a store-month per transaction: items and
 * payments first (they wait for their orders), then the orders, whose arrival works the month's
 * location-days out once; punches likewise. Costs, classes and wages are recorded first so each
 * month is priced as it lands.
 */

import type { Store } from '../../../cloud/db/index.ts';
import {
  createLedgerService,
  recordMenuItems,
  recordOrderItems,
  recordOrders,
  recordPayments,
  recordPunches,
  recordRecipes,
} from '../../../cloud/pnl/index.ts';
import type { CloudServices } from '../../../cloud/services.ts';
import { systemClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';

export interface ChainPlan {
  brands: number;
  locations: number;
  orderLines: number;
  days: number;
  menuItems: number;
  staffPerStore: number;
}

function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const dayOf = (start: string, offset: number) =>
  new Date(Date.parse(`${start}T00:00:00.000Z`) + offset * 86_400_000).toISOString().slice(0, 10);

export async function generateChain(
  services: CloudServices,
  store: Store,
  plan: ChainPlan,
  start = '2025-01-01',
) {
  const { tenancy } = services;
  const tenant = await tenancy.createTenant({
    slug: `bench-pnl-${Date.now()}`,
    name: 'Bench P&L',
    tier: 'enterprise',
  });
  const brands: Array<{ id: string; name: string }> = [];
  for (let b = 0; b < plan.brands; b += 1)
    brands.push(await tenancy.createGroup('brands', tenant.id, `Brand ${b + 1}`));
  const regions: Array<{ id: string; name: string }> = [];
  for (let r = 0; r < 5; r += 1)
    regions.push(await tenancy.createGroup('regions', tenant.id, `Region ${r + 1}`));
  const locations: Array<{ id: string; name: string; brand_id: string; region_id: string }> = [];
  for (let l = 0; l < plan.locations; l += 1)
    locations.push(
      await tenancy.createLocation(tenant.id, {
        name: `Store ${l + 1}`,
        brand_id: brands[l % plan.brands]!.id,
        region_id: regions[l % regions.length]!.id,
      }),
    );
  const ledger = createLedgerService({
    db: store.db,
    clock: systemClock,
    newId,
    structure: async () => ({ brands, regions, locations }),
    staffExists: async () => true,
  });
  for (let i = 0; i < 20; i += 1) await ledger.setItemCost(tenant.id, `inv-${i}`, 0.05 + i * 0.13);
  await ledger.setClassification(tenant.id, 'category', 'drinks', 'beverage');
  const staff = locations.flatMap((l) =>
    Array.from({ length: plan.staffPerStore }, (_, s) => `${l.id}-staff-${s}`),
  );
  for (const [i, id] of staff.entries())
    await ledger.setWageRate(tenant.id, {
      staff_id: id,
      hourly_rate: 14 + (i % 7),
      effective_from: '2024-01-01',
    });

  const linesPerStoreDay = plan.orderLines / plan.locations / plan.days;
  let lines = 0;
  for (const [index, location] of locations.entries()) {
    const rand = random(index + 1);
    const at = { tenantId: tenant.id, locationId: location.id };
    const menu = Array.from({ length: plan.menuItems }, (_, m) => ({
      id: `${location.id}-m${m}`,
      category: m % 4 === 0 ? 'drinks' : 'food',
      price: 250 + ((m * 137) % 1200),
    }));
    await store.db.transaction().execute(async (trx) => {
      await recordMenuItems(
        trx,
        at,
        menu.map((m) => ({ id: m.id, category_id: m.category, name: m.id })),
      );
      await recordRecipes(
        trx,
        at,
        menu.map((m, i) => ({
          menu_item_id: m.id,
          components: [
            { inventory_item_id: `inv-${i % 20}`, quantity_milli: 250 + (i % 5) * 100 },
            { inventory_item_id: `inv-${(i + 7) % 20}`, quantity_milli: 1000 },
          ],
        })),
      );
    });
    for (let month = 0; month * 31 < plan.days; month += 1) {
      const orders: Record<string, unknown>[] = [];
      const items: Record<string, unknown>[] = [];
      const payments: Record<string, unknown>[] = [];
      const punches: Record<string, unknown>[] = [];
      for (let d = month * 31; d < Math.min(plan.days, (month + 1) * 31); d += 1) {
        const day = dayOf(start, d);
        let todays = 0;
        while (todays < linesPerStoreDay) {
          const orderId = newId();
          let subtotal = 0;
          const count = 1 + Math.floor(rand() * 4);
          for (let k = 0; k < count; k += 1) {
            const m = menu[Math.floor(rand() * menu.length)]!;
            const quantity = 1 + Math.floor(rand() * 2);
            subtotal += quantity * m.price;
            items.push({ id: newId(), order_id: orderId, menu_item_id: m.id, quantity });
          }
          todays += count;
          const cancelled = rand() < 0.03;
          orders.push({
            id: orderId,
            business_day: day,
            status: cancelled ? 'cancelled' : 'completed',
            subtotal_minor: subtotal,
          });
          payments.push({ id: newId(), order_id: orderId, refunded_minor: rand() < 0.02 ? subtotal : 0 });
        }
        lines += todays;
        for (let s = 0; s < plan.staffPerStore; s += 1) {
          const staffId = `${location.id}-staff-${s}`;
          const startHour = 7 + s * 3;
          punches.push({
            id: newId(),
            staff_id: staffId,
            kind: 'clock_in',
            at: `${day}T${String(startHour).padStart(2, '0')}:00:00.000Z`,
          });
          punches.push({
            id: newId(),
            staff_id: staffId,
            kind: 'clock_out',
            at: `${day}T${String(startHour + 6).padStart(2, '0')}:30:00.000Z`,
          });
        }
      }
      await store.db.transaction().execute(async (trx) => {
        await recordOrderItems(trx, at, items);
        await recordPayments(trx, at, payments);
        await recordOrders(trx, at, orders);
        await recordPunches(trx, at, 'UTC', punches);
      });
    }
    for (let m = 0; m < 12; m += 1) {
      const month = `2025-${String(m + 1).padStart(2, '0')}`;
      await ledger.createExpense(tenant.id, {
        location_id: location.id,
        expense_date: `${month}-01`,
        category: 'occupancy',
        amount: 4000 + index,
      });
      await ledger.createExpense(tenant.id, {
        location_id: location.id,
        expense_date: `${month}-15`,
        category: 'utilities',
        amount: 600.5,
      });
    }
  }
  for (const brand of brands)
    for (let m = 0; m < 12; m += 1) {
      const month = `2025-${String(m + 1).padStart(2, '0')}`;
      await ledger.createExpense(tenant.id, {
        brand_id: brand.id,
        expense_date: `${month}-05`,
        category: 'marketing',
        amount: 9000,
      });
      await ledger.setBudget(tenant.id, {
        brand_id: brand.id,
        month,
        amounts: { net_revenue: 900_000, labor_cost: 200_000 },
      });
    }
  return { tenant, brands, regions, locations, lines };
}
