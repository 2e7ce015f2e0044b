/**
 * The bench's line to the cloud child beside the cloud's own API: the product has no route for a
 * cloud-side edit (head office's writes go through the sync service) nor for counting a store's rows,
 * so the child serves these on a second loopback port. Shapes are shared by both ends.
 */
import { request } from 'undici';

/** A store the cloud child set up for one measure, and its appliance's credential. */
export interface BenchStore {
  tenant_id: string;
  location_id: string;
  credential: string;
}

/** What the cloud wrote for a store's pull, so the bench can check that all of it landed. */
export interface FeedWritten {
  written: number;
  seconds: number;
  /** Distinct rows per table. */
  rows: Record<string, number>;
  /** Sum of the menu items' final prices and of every stock movement's delta. */
  price_sum: number;
  delta_sum: number;
}

/** The cloud's edits of a store while its appliance is offline. */
export interface EditsRequest {
  /** Price changes, one per item. */
  menu_item_ids: string[];
  /** Corrections cycle through these punches. */
  punch_ids: string[];
  corrections: number;
  /** Restocks cycle through these stock items. */
  inventory_item_ids: string[];
  restocks: number;
}

export interface EditsWritten {
  written: number;
  seconds: number;
}

/** A store as the cloud holds it: live rows per table, changes received, events, feed position. */
export interface CloudState {
  rows: Record<string, number>;
  changes: number;
  conflicts: number;
  events: number;
  feed_seq: number;
  pulled_cursor: number;
}

export interface CloudRow {
  row_id: string;
  version: number;
  fields: Record<string, unknown> | null;
}

const CONTROL_TIMEOUT_MS = 900_000;

export type CloudControl = ReturnType<typeof cloudControl>;

export function cloudControl(controlPort: number) {
  // undici rather than fetch: writing a feed takes minutes, past fetch's fixed 300 s for headers.
  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await request(`http://127.0.0.1:${controlPort}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      headersTimeout: CONTROL_TIMEOUT_MS,
      bodyTimeout: CONTROL_TIMEOUT_MS,
    });
    const text = await response.body.text();
    if (response.statusCode >= 300)
      throw new Error(`cloud child ${method} ${path} answered ${response.statusCode}: ${text}`);
    return JSON.parse(text) as T;
  }
  return {
    createStore: () => call<BenchStore>('POST', '/stores'),
    writeFeed: (locationId: string, count: number) =>
      call<FeedWritten>('POST', `/stores/${locationId}/feed`, { count }),
    writeEdits: (locationId: string, request: EditsRequest) =>
      call<EditsWritten>('POST', `/stores/${locationId}/edits`, request),
    state: (locationId: string) => call<CloudState>('GET', `/stores/${locationId}/state`),
    rows: async (locationId: string, table: string) =>
      (await call<{ rows: CloudRow[] }>('GET', `/stores/${locationId}/rows/${table}`)).rows,
    startProfile: () => call<{ started: boolean }>('POST', '/profile/start'),
    stopProfile: (file: string) => call<{ file: string }>('POST', '/profile/stop', { file }),
  };
}
