/**
 * The tenant's stores by id, for names and time zones: devices, certificates and rollouts name
 * stores by location id only. Locations are an admin read; without it the screens show the ids.
 */
import { query } from '../../api.ts';
import { useResource } from '../../hooks.ts';
import { api } from '../../session.ts';
import type { ListAnswer } from './types.ts';

export interface StoreInfo {
  id: string;
  name: string;
  timezone: string;
  status: 'active' | 'inactive';
}

const MAX_PAGES = 10;

async function loadStores(signal: AbortSignal): Promise<StoreInfo[]> {
  const stores: StoreInfo[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer: ListAnswer<StoreInfo> = await api.get(
      `/v1/platform/locations${query({ limit: 200, cursor })}`,
      signal,
    );
    stores.push(...answer.data);
    cursor = answer.meta?.pagination?.next_cursor ?? null;
    if (!cursor) break;
  }
  return stores.sort((a, b) => a.name.localeCompare(b.name));
}

export function useStores() {
  const resource = useResource(loadStores, []);
  const list = resource.data ?? [];
  const byId = new Map(list.map((store) => [store.id, store]));
  return { list, byId, error: resource.error, loading: resource.loading };
}

export type Stores = ReturnType<typeof useStores>;

/** A store's name, or the end of its id (ids share their time-ordered start) when the name is unknown. */
export const storeName = (stores: Stores, id: string) =>
  stores.byId.get(id)?.name ?? `Store …${id.slice(-8)}`;
export const storeZone = (stores: Stores, id: string) => stores.byId.get(id)?.timezone;
