/**
 * The tenant's stores by id (name and time zone), read once per screen from
 * /v1/platform/locations, so alerts and incidents name their store and show its local time.
 */
import { query } from '../../api.ts';
import { nextCursorOf, useResource } from '../../hooks.ts';
import { api } from '../../session.ts';
import type { Paged } from './types.ts';

export interface StoreRef {
  id: string;
  name: string;
  timezone: string;
}

/** Enough pages for a large group; a store past them shows by its id. */
const MAX_PAGES = 10;

async function loadStores(signal: AbortSignal): Promise<Map<string, StoreRef>> {
  const stores = new Map<string, StoreRef>();
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer: Paged<StoreRef> = await api.get<Paged<StoreRef>>(
      `/v1/platform/locations${query({ limit: 200, cursor })}`,
      signal,
    );
    for (const store of answer.data) stores.set(store.id, store);
    cursor = nextCursorOf(answer);
    if (!cursor) break;
  }
  return stores;
}

/** Stores by id; an empty map while loading or when the caller may not list them. */
export function useStores(): Map<string, StoreRef> {
  const { data } = useResource((signal) => loadStores(signal).catch(() => new Map()), []);
  return data ?? new Map();
}
