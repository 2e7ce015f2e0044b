/** A brand's menu as head office keeps it, its stores, and the publications that carry changes to them. */
import { query } from '../../api.ts';
import { api } from '../../session.ts';

export interface Brand {
  id: string;
  name: string;
}

export interface Store {
  id: string;
  brand_id: string;
  name: string;
  timezone: string;
  status: 'active' | 'inactive';
}

export interface Category {
  id: string;
  brand_id: string;
  name: string;
  position: number;
}

export interface Override {
  location_id: string;
  price_minor: number | null;
  available: boolean | null;
}

export interface MenuItem {
  id: string;
  brand_id: string;
  category_id: string;
  name: string;
  description: string;
  price_minor: number;
  available: boolean;
  overrides: Override[];
  updated_at: string;
}

export interface PublicationRef {
  id: string;
  state: 'publishing';
  stores_total: number;
}

export interface PublicationStore {
  location_id: string;
  state: 'queued' | 'pending' | 'applied';
  feed_seq: number | null;
  pulled_cursor: number;
}

export interface Publication {
  id: string;
  brand_id: string;
  change: string;
  state: 'publishing' | 'pending' | 'applied';
  created_at: string;
  published_at: string | null;
  stores_total: number;
  stores_written: number;
  stores_applied: number;
  stores: PublicationStore[];
}

export interface SyncStatus {
  location_id: string;
  online: boolean;
  last_seen_at: string | null;
  last_pull_at: string | null;
}

const MAX_PAGES = 25;

/** Lists that answer no next_cursor: a full page may have more after its last id. */
async function allById<T extends { id: string; name: string }>(
  path: string,
  params: Record<string, string>,
  signal: AbortSignal,
) {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const batch = await api.data<T[]>(`${path}${query({ ...params, limit: 200, cursor })}`, signal);
    all.push(...batch);
    if (batch.length < 200) break;
    cursor = batch[batch.length - 1]?.id;
  }
  return all.sort((a, b) => a.name.localeCompare(b.name));
}

/** Lists that answer `{items, next_cursor}`. */
async function allPaged<T>(path: string, params: Record<string, string>, signal: AbortSignal) {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await api.data<{ items: T[]; next_cursor: string | null }>(
      `${path}${query({ ...params, limit: 200, cursor })}`,
      signal,
    );
    all.push(...answer.items);
    if (!answer.next_cursor) break;
    cursor = answer.next_cursor;
  }
  return all;
}

export const listBrands = (signal: AbortSignal) => allById<Brand>('/v1/platform/brands', {}, signal);

export const listStores = (brandId: string, signal: AbortSignal) =>
  allById<Store>('/v1/platform/locations', { brand_id: brandId }, signal);

export async function loadMenu(brandId: string, signal: AbortSignal) {
  const [categories, items] = await Promise.all([
    allPaged<Category>('/v1/commerce/menu/categories', { brand_id: brandId }, signal),
    allPaged<MenuItem>('/v1/commerce/menu/items', { brand_id: brandId }, signal),
  ]);
  categories.sort((a, b) => a.position - b.position || a.name.localeCompare(b.name));
  const order = new Map(categories.map((c, i) => [c.id, i]));
  const rank = (item: MenuItem) => order.get(item.category_id) ?? categories.length;
  items.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  return { categories, items };
}

const scope = (storeId: string | undefined) => (storeId ? { location_ids: [storeId] } : {});

export const putPrices = (
  brandId: string,
  prices: Array<{ item_id: string; price_minor: number }>,
  storeId: string | undefined,
) =>
  api.put<{ data: { items: number; publication: PublicationRef } }>('/v1/commerce/menu/prices', {
    brand_id: brandId,
    prices,
    ...scope(storeId),
  });

export const putAvailability = (itemId: string, available: boolean, storeId: string | undefined) =>
  api.put<{ data: MenuItem & { publication: PublicationRef } }>(
    `/v1/commerce/menu/items/${encodeURIComponent(itemId)}/availability`,
    { available, ...scope(storeId) },
  );

export const createItem = (body: {
  brand_id: string;
  category_id: string;
  name: string;
  price_minor: number;
  description?: string;
  available: boolean;
}) => api.post<{ data: MenuItem & { publication: PublicationRef } }>('/v1/commerce/menu/items', body);

export const patchItem = (id: string, body: { name?: string; category_id?: string; description?: string }) =>
  api.patch<{ data: MenuItem & { publication: PublicationRef } }>(
    `/v1/commerce/menu/items/${encodeURIComponent(id)}`,
    body,
  );

export const createCategory = (brandId: string, name: string) =>
  api.post<{ data: Category & { publication: PublicationRef } }>('/v1/commerce/menu/categories', {
    brand_id: brandId,
    name,
  });

export const getPublication = (id: string, signal?: AbortSignal) =>
  api.data<Publication>(`/v1/commerce/menu/publications/${encodeURIComponent(id)}`, signal);

export const getSyncStatus = (locationId: string, signal?: AbortSignal) =>
  api.data<SyncStatus>(`/v1/sync/status/${encodeURIComponent(locationId)}`, signal);
