import type { Totals } from './figures.ts';
import { addTotals, zeroTotals } from './figures.ts';
import type { DayMoney, ExpenseSum } from './store.ts';

export interface Named {
  id: string;
  name: string;
}
export interface PnlLocation extends Named {
  brand_id: string;
  region_id: string;
}
/** The tenant's brands, regions and locations, as tenancy holds them. */
export interface Structure {
  brands: Named[];
  regions: Named[];
  locations: PnlLocation[];
}

/**
 * Totals per key (a day, or '' for the whole period) and location. A brand's expense is shared
 * equally among its locations (sorted by id, the first ones taking the odd cents), so a brand is
 * always the sum of its locations.
 */
export function totalsByLocation(structure: Structure, money: DayMoney[], expenses: ExpenseSum[]) {
  const out = new Map<string, Map<string, Totals>>();
  const at = (key: string, locationId: string) => {
    const byLocation = out.get(key) ?? new Map<string, Totals>();
    out.set(key, byLocation);
    const totals = byLocation.get(locationId) ?? zeroTotals();
    byLocation.set(locationId, totals);
    return totals;
  };
  for (const row of money) {
    const { key, location_id, ...figures } = row;
    addTotals(at(key, location_id), { ...zeroTotals(), ...figures });
  }
  const byBrand = new Map<string, string[]>();
  for (const location of [...structure.locations].sort((a, b) => a.id.localeCompare(b.id)))
    byBrand.set(location.brand_id, [...(byBrand.get(location.brand_id) ?? []), location.id]);
  for (const row of expenses) {
    if (row.location_id) {
      at(row.key, row.location_id)[row.category] += row.amount;
      continue;
    }
    const locations = byBrand.get(row.brand_id ?? '') ?? [];
    const share = Math.trunc(row.amount / Math.max(1, locations.length));
    const odd = row.amount - share * locations.length;
    locations.forEach((locationId, i) => {
      at(row.key, locationId)[row.category] += share + (i < Math.abs(odd) ? Math.sign(odd) : 0);
    });
  }
  return out;
}

export const sumOver = (byLocation: Map<string, Totals> | undefined, locationIds: Iterable<string>) => {
  const sum = zeroTotals();
  if (!byLocation) return sum;
  for (const id of locationIds) {
    const totals = byLocation.get(id);
    if (totals) addTotals(sum, totals);
  }
  return sum;
};
