/**
 * Sends the staged changes: every price in one PUT /v1/commerce/menu/prices, then each
 * availability change (the API takes those one item at a time). Each answer is a publication the
 * progress panel follows. What did not go through stays staged, with the server's words on its row.
 */
import { ApiError } from '../../api.ts';
import { type PublicationRef, putAvailability, putPrices } from './api.ts';
import { parsePrice, type Staged } from './staging.ts';

export interface Run {
  id: string;
  label: string;
  stores_total: number;
}

export interface PublishOutcome {
  runs: Run[];
  remaining: Map<string, Staged>;
  error?: unknown;
  fieldErrors: Map<string, string>;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const runOf = (publication: PublicationRef, label: string): Run => ({
  id: publication.id,
  label,
  stores_total: publication.stores_total,
});

/** 400 details name `body.prices.<index>.<field>`: back to the item the index stands for. */
function priceFieldErrors(error: unknown, ids: string[]): Map<string, string> {
  const found = new Map<string, string>();
  if (!(error instanceof ApiError) || error.status !== 400) return found;
  for (const detail of error.details) {
    const index = /prices\.(\d+)/.exec(detail.field)?.[1];
    const id = index === undefined ? undefined : ids[Number(index)];
    if (id) found.set(id, `The cloud refused this price: ${detail.message}`);
  }
  return found;
}

export async function publishStaged(
  brandId: string,
  storeId: string | undefined,
  staged: Map<string, Staged>,
  nameOf: (id: string) => string,
): Promise<PublishOutcome> {
  const remaining = new Map(staged);
  const runs: Run[] = [];
  const prices = [...staged].flatMap(([item_id, s]) => {
    const parsed = s.price === undefined ? undefined : parsePrice(s.price);
    return parsed && 'minor' in parsed ? [{ item_id, price_minor: parsed.minor }] : [];
  });
  if (prices.length > 0) {
    try {
      const answer = await putPrices(brandId, prices, storeId);
      runs.push(runOf(answer.data.publication, `New prices for ${plural(prices.length, 'item')}`));
      for (const { item_id } of prices) dropField(remaining, item_id, 'price');
    } catch (error) {
      const ids = prices.map((p) => p.item_id);
      return { runs, remaining, error, fieldErrors: priceFieldErrors(error, ids) };
    }
  }
  for (const [id, s] of staged) {
    if (s.available === undefined) continue;
    try {
      const answer = await putAvailability(id, s.available, storeId);
      const label = `${nameOf(id)} ${s.available ? 'available' : 'not available'}`;
      runs.push(runOf(answer.data.publication, label));
      dropField(remaining, id, 'available');
    } catch (error) {
      return { runs, remaining, error, fieldErrors: new Map() };
    }
  }
  return { runs, remaining, fieldErrors: new Map() };
}

function dropField(staged: Map<string, Staged>, id: string, field: keyof Staged) {
  const before = staged.get(id);
  if (!before) return;
  const rest: Staged = { ...before, [field]: undefined };
  if (rest.price === undefined && rest.available === undefined) staged.delete(id);
  else staged.set(id, rest);
}
