/**
 * Price and availability edits held back until Publish: one staged change per field, compared
 * with what the brand (or the selected store) has now, so typing the old price back unstages it.
 */
import { useState } from 'preact/hooks';
import type { MenuItem } from './api.ts';

export interface Staged {
  /** The price as typed, in currency units ("4.50"). */
  price?: string;
  available?: boolean;
}

const PRICE = /^\d+(\.\d{1,2})?$/;
const MAX_MINOR = 100_000_000_000;

/** Plain words for what is wrong with a typed price, or its value in minor units. */
export function parsePrice(text: string): { minor: number } | { error: string } {
  const value = text.trim().replace(/^\$/, '').replace(/,/g, '');
  if (value === '') return { error: 'Enter a price, e.g. 4.50.' };
  if (/^-/.test(value)) return { error: 'A price must be a positive amount.' };
  if (/^\d*\.\d{3,}$/.test(value)) return { error: 'A price has at most 2 decimals (cents), e.g. 4.50.' };
  if (!PRICE.test(value)) return { error: 'Enter the price as a number, e.g. 4.50.' };
  const minor = Math.round(Number(value) * 100);
  if (minor <= 0) return { error: 'A price must be a positive amount, more than zero.' };
  if (minor > MAX_MINOR) return { error: 'That price is too large.' };
  return { minor };
}

export const formatPriceInput = (minor: number) => (minor / 100).toFixed(2);

/** What the scope (the brand, or one store) has now: the store's own value, else the brand's. */
export function currentOf(item: MenuItem, storeId: string | undefined) {
  const own = storeId ? item.overrides.find((o) => o.location_id === storeId) : undefined;
  return {
    price_minor: own?.price_minor ?? item.price_minor,
    available: own?.available ?? item.available,
    ownPrice: own?.price_minor !== null && own?.price_minor !== undefined,
    ownAvailability: own?.available !== null && own?.available !== undefined,
  };
}

export function useStaging() {
  const [staged, setStaged] = useState<Map<string, Staged>>(new Map());
  const update = (id: string, patch: (before: Staged) => Staged) =>
    setStaged((all) => {
      const next = new Map(all);
      const value = patch(all.get(id) ?? {});
      if (value.price === undefined && value.available === undefined) next.delete(id);
      else next.set(id, value);
      return next;
    });
  const setPrice = (item: MenuItem, storeId: string | undefined, text: string) => {
    const parsed = parsePrice(text);
    const same = 'minor' in parsed && parsed.minor === currentOf(item, storeId).price_minor;
    update(item.id, (before) => ({ ...before, price: same ? undefined : text }));
  };
  const setAvailable = (item: MenuItem, storeId: string | undefined, available: boolean) => {
    const same = available === currentOf(item, storeId).available;
    update(item.id, (before) => ({ ...before, available: same ? undefined : available }));
  };
  const count = [...staged.values()].reduce(
    (sum, s) => sum + (s.price !== undefined ? 1 : 0) + (s.available !== undefined ? 1 : 0),
    0,
  );
  /** Keeps only the changes that did not go through. */
  const keep = (next: Map<string, Staged>) => setStaged(next);
  return { staged, setPrice, setAvailable, count, discard: () => setStaged(new Map()), keep };
}

export type Staging = ReturnType<typeof useStaging>;

/** Each staged price's problem, by item id; empty when all can be sent. */
export function priceProblems(staged: Map<string, Staged>): Map<string, string> {
  const problems = new Map<string, string>();
  for (const [id, s] of staged) {
    if (s.price === undefined) continue;
    const parsed = parsePrice(s.price);
    if ('error' in parsed) problems.set(id, parsed.error);
  }
  return problems;
}
