import type { Clock } from '../../shared/clock.ts';
import { AppError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import { BRAND_ROUTE, createKitchenStore } from './kitchen-store.ts';
import { type Page, paged } from './paging.ts';
import type { Publisher } from './publisher.ts';
import type { MenuItemRow, RouteRow, StationRow } from './tables.ts';

export interface KitchenDeps {
  db: Db;
  clock: Clock;
  newId: IdGenerator;
  publisher: Publisher;
  requireItem(tenantId: string, id: string): Promise<MenuItemRow>;
}

const stationNotFound = () => new NotFoundError('Station', 'STATION_NOT_FOUND');
// A store keeps one station by a name, whatever its case: a second would stop its sync.
const nameTaken = () =>
  new AppError(409, 'STATION_NAME_TAKEN', 'The brand has a station by that name already');

const toStation = (row: StationRow) => ({
  id: row.id,
  brand_id: row.brand_id,
  name: row.name,
  position: Number(row.position),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

const toRouting = (itemId: string, routes: RouteRow[]) => ({
  menu_item_id: itemId,
  station_id: routes.find((r) => r.location_id === BRAND_ROUTE)?.station_id ?? null,
  overrides: routes
    .filter((r) => r.location_id !== BRAND_ROUTE)
    .map((r) => ({ location_id: r.location_id, station_id: r.station_id }))
    .sort((a, b) => a.location_id.localeCompare(b.location_id)),
});

/**
 * A brand's kitchen: its stations, and which station prepares each item, for every store of the
 * brand or for the stores named; published to the stores like the menu.
 */
export function createKitchenService(deps: KitchenDeps) {
  const store = createKitchenStore(deps.db);
  const { publisher } = deps;
  const now = () => deps.clock.now().toISOString();

  async function requireStation(tenantId: string, id: string) {
    const row = await store.station(tenantId, id);
    if (!row) throw stationNotFound();
    return row;
  }

  async function routing(tenantId: string, itemId: string) {
    return toRouting(itemId, await store.routes(tenantId, [itemId]));
  }

  return {
    async createStation(
      tenantId: string,
      input: { brand_id: string; name: string; position?: number | undefined },
    ) {
      await publisher.requireBrand(tenantId, input.brand_id);
      const name = input.name.trim();
      if (await store.nameTaken(tenantId, input.brand_id, name)) throw nameTaken();
      const at = now();
      const row: StationRow = {
        tenant_id: tenantId,
        id: deps.newId(),
        brand_id: input.brand_id,
        name,
        position: input.position ?? 0,
        created_at: at,
        updated_at: at,
      };
      await store.insertStation(row);
      const publication = await publisher.publish(tenantId, row.brand_id, 'station', [row.id]);
      return { ...toStation(row), publication };
    },

    async updateStation(
      tenantId: string,
      id: string,
      patch: { name?: string | undefined; position?: number | undefined },
    ) {
      const current = await requireStation(tenantId, id);
      const name = patch.name?.trim();
      if (name !== undefined && (await store.nameTaken(tenantId, current.brand_id, name, id)))
        throw nameTaken();
      await store.updateStation(tenantId, id, {
        ...(name !== undefined ? { name } : {}),
        ...(patch.position !== undefined ? { position: patch.position } : {}),
        updated_at: now(),
      });
      const publication = await publisher.publish(tenantId, current.brand_id, 'station', [id]);
      return { ...toStation(await requireStation(tenantId, id)), publication };
    },

    getStation: async (tenantId: string, id: string) => toStation(await requireStation(tenantId, id)),

    async listStations(tenantId: string, brandId: string, page: Page) {
      await publisher.requireBrand(tenantId, brandId);
      const { page: rows, next_cursor } = paged(
        await store.stations(tenantId, brandId, page.cursor, page.limit + 1),
        page.limit,
      );
      return { items: rows.map(toStation), next_cursor };
    },

    /**
     * Routes an item to a station for every store of the brand (stores' own routes dropped), or
     * for the stores named, each keeping it until head office routes the item for all again.
     */
    async route(tenantId: string, itemId: string, stationId: string, locationIds?: readonly string[]) {
      const item = await deps.requireItem(tenantId, itemId);
      const station = await requireStation(tenantId, stationId);
      if (station.brand_id !== item.brand_id)
        throw new InvalidRequestError('The station is another brand’s', [
          { field: 'body.station_id', message: 'must be a station of the item’s brand' },
        ]);
      const at = now();
      if (locationIds === undefined) {
        await store.clearStoreRoutes(tenantId, itemId);
        await store.setRoutes(tenantId, itemId, [BRAND_ROUTE], stationId, at);
        const publication = await publisher.publish(tenantId, item.brand_id, 'routing', [itemId]);
        return { ...(await routing(tenantId, itemId)), publication };
      }
      const stores = await publisher.targets(tenantId, item.brand_id, locationIds);
      await store.setRoutes(tenantId, itemId, stores, stationId, at);
      const publication = await publisher.publish(tenantId, item.brand_id, 'routing', [itemId], stores);
      return { ...(await routing(tenantId, itemId)), publication };
    },

    async routing(tenantId: string, itemId: string) {
      await deps.requireItem(tenantId, itemId);
      return routing(tenantId, itemId);
    },
  };
}

export type KitchenService = ReturnType<typeof createKitchenService>;
