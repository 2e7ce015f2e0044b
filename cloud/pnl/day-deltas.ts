import { sql } from 'kysely';
import type { Db } from '../db/index.ts';

export interface Where {
  tenantId: string;
  locationId: string;
}

export const CHUNK = 400;
export const chunks = <T>(items: readonly T[]) =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK));

const SEP = '\u0000';

/**
 * What one push changes in its store's day rollups, gathered as differences (a row's new
 * contribution less the one it replaced) and written in a few statements at the end. The cost of
 * a push follows the rows it carries, not how busy the day already is.
 */
export function createDayDeltas() {
  const money = new Map<string, { gross: number; refund: number }>();
  const units = new Map<string, number>();
  const moneyOf = (day: string) => {
    const entry = money.get(day) ?? { gross: 0, refund: 0 };
    money.set(day, entry);
    return entry;
  };
  return {
    /** A day the push wrote facts for: it gets a row even when nothing it sold counts. */
    touch(day: string) {
      if (day !== '') moneyOf(day);
    },
    gross(day: string, amount: number) {
      moneyOf(day).gross += amount;
    },
    refund(day: string, amount: number) {
      moneyOf(day).refund += amount;
    },
    units(day: string, menuItemId: string, quantity: number) {
      moneyOf(day);
      const key = `${day}${SEP}${menuItemId}`;
      units.set(key, (units.get(key) ?? 0) + quantity);
    },
    days: () => [...money.keys()],
    async write(db: Db, at: Where) {
      await writeUnits(db, at, units);
      await writeMoney(db, at, money);
      for (const days of chunks([...money.keys()]))
        await reprice(db, at.tenantId, { locationId: at.locationId, days });
    },
  };
}

async function writeUnits(db: Db, at: Where, units: Map<string, number>) {
  const changed = [...units].filter(([, quantity]) => quantity !== 0);
  for (const part of chunks(changed)) {
    const rows = part.map(([key, quantity]) => {
      const [business_day, menu_item_id] = key.split(SEP) as [string, string];
      return { tenant_id: at.tenantId, location_id: at.locationId, business_day, menu_item_id, quantity };
    });
    await db
      .insertInto('pnl_day_items')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'location_id', 'business_day', 'menu_item_id']).doUpdateSet((eb) => ({
          quantity: eb('pnl_day_items.quantity', '+', eb.ref('excluded.quantity')),
        })),
      )
      .execute();
    // An item no longer sold that day leaves the day, as a rebuild from the facts would leave it.
    await db
      .deleteFrom('pnl_day_items')
      .where('tenant_id', '=', at.tenantId)
      .where('location_id', '=', at.locationId)
      .where('business_day', 'in', [...new Set(rows.map((r) => r.business_day))])
      .where('quantity', '=', 0)
      .execute();
  }
}

async function writeMoney(db: Db, at: Where, money: Map<string, { gross: number; refund: number }>) {
  for (const part of chunks([...money]))
    await db
      .insertInto('pnl_days')
      .values(
        part.map(([business_day, { gross, refund }]) => ({
          tenant_id: at.tenantId,
          location_id: at.locationId,
          business_day,
          gross_minor: gross,
          discount_minor: 0,
          refund_minor: refund,
          food_cost_minor: 0,
          beverage_cost_minor: 0,
          labor_cost_minor: 0,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'location_id', 'business_day']).doUpdateSet((eb) => ({
          gross_minor: eb('pnl_days.gross_minor', '+', eb.ref('excluded.gross_minor')),
          refund_minor: eb('pnl_days.refund_minor', '+', eb.ref('excluded.refund_minor')),
        })),
      )
      .execute();
}

/**
 * Costs of days multiplied again from their quantities at the item costs and wages in force, each
 * location-day rounded to cents once: every report sums these, so totals add up exactly.
 */
export async function reprice(
  trx: Db,
  tenantId: string,
  scope: { locationId?: string; days?: string[] } = {},
) {
  const cost = (beverage: 0 | 1) => sql<number>`coalesce((
      select cast(round(sum(i.quantity * m.unit_cost_micros) / 10000.0) as bigint)
      from pnl_day_items i join pnl_menu_costs m
        on m.tenant_id = i.tenant_id and m.location_id = i.location_id and m.menu_item_id = i.menu_item_id
      where i.tenant_id = pnl_days.tenant_id and i.location_id = pnl_days.location_id
        and i.business_day = pnl_days.business_day and m.is_beverage = ${beverage}), 0)`;
  const labor = sql<number>`coalesce((
      select cast(round(sum(h.seconds * w.hourly_rate_minor) / 3600.0) as bigint)
      from pnl_day_hours h join pnl_wage_rates w
        on w.tenant_id = h.tenant_id and w.staff_id = h.staff_id and w.effective_from <= h.business_day
        and (w.effective_to is null or w.effective_to >= h.business_day)
      where h.tenant_id = pnl_days.tenant_id and h.location_id = pnl_days.location_id
        and h.business_day = pnl_days.business_day), 0)`;
  await trx
    .updateTable('pnl_days')
    .set({ food_cost_minor: cost(0), beverage_cost_minor: cost(1), labor_cost_minor: labor })
    .where('tenant_id', '=', tenantId)
    .$if(scope.locationId !== undefined, (q) => q.where('location_id', '=', scope.locationId!))
    .$if(scope.days !== undefined, (q) => q.where('business_day', 'in', scope.days!))
    .execute();
}
