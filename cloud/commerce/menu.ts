import type { Clock } from '../../shared/clock.ts';
import { InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import { itemEvents, sameRow, storeCategory, storeItem, storeRowId } from './catalog.ts';
import { createMenuStore } from './menu-store.ts';
import type { EditStore, StoreEdit } from './service.ts';
import type { MenuCategoryRow, MenuItemRow, MenuOverrideRow, PublicationRow } from './tables.ts';

export interface MenuDeps {
  db: Db;
  clock: Clock;
  newId: IdGenerator;
  editStore: EditStore;
  brandExists(tenantId: string, brandId: string): Promise<boolean>;
  /** The brand's stores, every one of them. */
  locationsOfBrand(tenantId: string, brandId: string): Promise<string[]>;
  /** The store's brand; undefined for a store not in the tenant, null for a store of no brand. */
  brandOfLocation(tenantId: string, locationId: string): Promise<string | null | undefined>;
  pulledCursors(tenantId: string, locationIds: readonly string[]): Promise<Map<string, number>>;
  log?: { warn(object: object, message: string): void } | undefined;
  /** Stores written at once while publishing (PostgreSQL takes several; SQLite has one writer). */
  parallelStores?: number | undefined;
}

export interface Page {
  limit: number;
  cursor?: string | undefined;
}

type StoreState = 'queued' | 'pending' | 'applied';
type PublicationProgress = 'publishing' | 'pending' | 'applied';

const brandNotFound = () => new NotFoundError('Brand', 'BRAND_NOT_FOUND');
const categoryNotFound = () => new NotFoundError('Category', 'CATEGORY_NOT_FOUND');
const itemNotFound = () => new NotFoundError('Menu item', 'ITEM_NOT_FOUND');
const publicationNotFound = () => new NotFoundError('Publication', 'PUBLICATION_NOT_FOUND');
const locationNotFound = () => new NotFoundError('Location', 'LOCATION_NOT_FOUND');
const notOfBrand = (locationId: string) =>
  new InvalidRequestError('A store named is not of the item’s brand', [
    { field: 'body.location_ids', message: `${locationId} is a store of another brand` },
  ]);

const toCategory = (row: MenuCategoryRow) => ({
  id: row.id,
  brand_id: row.brand_id,
  name: row.name,
  position: Number(row.position),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

const toItem = (row: MenuItemRow, overrides: MenuOverrideRow[] = []) => ({
  id: row.id,
  brand_id: row.brand_id,
  category_id: row.category_id,
  name: row.name,
  description: row.description,
  price_minor: Number(row.price_minor),
  available: Number(row.available) === 1,
  overrides: overrides
    .filter((o) => o.price_minor !== null || o.available !== null)
    .map((o) => ({
      location_id: o.location_id,
      price_minor: o.price_minor === null ? null : Number(o.price_minor),
      available: o.available === null ? null : Number(o.available) === 1,
    }))
    .sort((a, b) => a.location_id.localeCompare(b.location_id)),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/**
 * Head office's menus, one per brand, with a store's own price or availability where it has one.
 * Every change is a publication: the brand's rows are written into each affected store's synced
 * rows (server_wins, one transaction per store), and the publication shows, store by store, when
 * the store's pull has passed it. A publication is recorded before its first store is written, so
 * one that a restart interrupted is finished by `resume`.
 */
export function createMenuService(deps: MenuDeps) {
  const store = createMenuStore(deps.db);
  const now = () => deps.clock.now().toISOString();
  const parallel = Math.max(1, deps.parallelStores ?? 1);
  // One brand's publications reach its stores in the order they were made.
  const lanes = new Map<string, Promise<void>>();
  const running = new Set<Promise<void>>();

  async function requireBrand(tenantId: string, brandId: string) {
    if (!(await deps.brandExists(tenantId, brandId))) throw brandNotFound();
  }
  async function requireCategory(tenantId: string, id: string) {
    const row = await store.category(tenantId, id);
    if (!row) throw categoryNotFound();
    return row;
  }
  async function requireItem(tenantId: string, id: string) {
    const row = await store.item(tenantId, id);
    if (!row) throw itemNotFound();
    return row;
  }

  /** The stores named, each checked to be a store of the brand; all the brand's when none are. */
  async function targets(tenantId: string, brandId: string, locationIds?: readonly string[]) {
    if (locationIds === undefined) return deps.locationsOfBrand(tenantId, brandId);
    const unique = [...new Set(locationIds)];
    for (const locationId of unique) {
      const brand = await deps.brandOfLocation(tenantId, locationId);
      if (brand === undefined) throw locationNotFound();
      if (brand !== brandId) throw notOfBrand(locationId);
    }
    return unique;
  }

  /** The edits that bring one store's rows of these catalog ids to what the brand says. */
  async function storeEdits(
    tenantId: string,
    locationId: string,
    catalogIds: string[],
    onlyMissing: boolean,
  ) {
    const [categories, items] = await Promise.all([
      store.categoriesByIds(tenantId, catalogIds),
      store.itemsByIds(tenantId, catalogIds),
    ]);
    const named = new Set(categories.map((c) => c.id));
    // An item's category must be at the store for the item to be: one it lacks goes with it.
    const needed = await store.categoriesByIds(
      tenantId,
      [...new Set(items.map((i) => i.category_id))].filter((id) => !named.has(id)),
    );
    const overrides = new Map(
      (
        await store.overrides(
          tenantId,
          items.map((i) => i.id),
          locationId,
        )
      ).map((o) => [o.item_id, o]),
    );
    const settle =
      (wanted: ReturnType<typeof storeCategory>, missingOnly: boolean) =>
      (current: typeof wanted | undefined) => {
        if (current && (missingOnly || sameRow(current, wanted))) return undefined;
        return wanted;
      };
    const edits: StoreEdit[] = [
      ...categories.map((c) => ({
        table: 'menu_categories' as const,
        rowId: storeRowId(c.id, locationId),
        fields: settle(storeCategory(c, locationId), onlyMissing),
      })),
      ...needed.map((c) => ({
        table: 'menu_categories' as const,
        rowId: storeRowId(c.id, locationId),
        fields: settle(storeCategory(c, locationId), true),
      })),
      ...items.map((i) => ({
        table: 'menu_items' as const,
        rowId: storeRowId(i.id, locationId),
        fields: settle(storeItem(i, locationId, overrides.get(i.id)), onlyMissing),
        events: itemEvents,
      })),
    ];
    return edits;
  }

  async function writeStore(publication: PublicationRow, locationId: string) {
    const tenantId = publication.tenant_id;
    const edits = await storeEdits(tenantId, locationId, JSON.parse(publication.catalog_ids), false);
    const { last_seq } = await deps.editStore(tenantId, locationId, edits);
    await store.insertPublicationStore({
      tenant_id: tenantId,
      publication_id: publication.id,
      location_id: locationId,
      feed_seq: last_seq,
      written_at: now(),
    });
  }

  async function fanOut(publication: PublicationRow) {
    const written = new Set(
      (await store.publicationStores(publication.tenant_id, publication.id)).map((s) => s.location_id),
    );
    const queue = (JSON.parse(publication.location_ids) as string[]).filter((id) => !written.has(id));
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift())
        await writeStore(publication, next);
    };
    await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, worker));
    await store.finishPublication(publication.tenant_id, publication.id, now());
  }

  /** Runs a publication after the brand's earlier ones; a failure is logged and left for `resume`. */
  function schedule(publication: PublicationRow) {
    const lane = `${publication.tenant_id}/${publication.brand_id}`;
    const run = (lanes.get(lane) ?? Promise.resolve())
      .then(() => fanOut(publication))
      .catch((error: unknown) =>
        deps.log?.warn(
          { err: error, publication: publication.id },
          'publishing a menu change stopped; it resumes on restart',
        ),
      );
    lanes.set(lane, run);
    running.add(run);
    void run.finally(() => {
      running.delete(run);
      if (lanes.get(lane) === run) lanes.delete(lane);
    });
    return run;
  }

  async function publish(
    tenantId: string,
    brandId: string,
    change: string,
    catalogIds: string[],
    locationIds: string[],
  ) {
    const publication: PublicationRow = {
      tenant_id: tenantId,
      id: deps.newId(),
      brand_id: brandId,
      change,
      catalog_ids: JSON.stringify(catalogIds),
      location_ids: JSON.stringify(locationIds),
      state: 'publishing',
      created_at: now(),
      published_at: null,
    };
    await store.insertPublication(publication);
    schedule(publication);
    return { id: publication.id, state: 'publishing' as const, stores_total: locationIds.length };
  }

  async function progress(tenantId: string, id: string) {
    const publication = await store.publication(tenantId, id);
    if (!publication) throw publicationNotFound();
    const locationIds = JSON.parse(publication.location_ids) as string[];
    const written = new Map(
      (await store.publicationStores(tenantId, id)).map((s) => [s.location_id, Number(s.feed_seq ?? 0)]),
    );
    const pulled = await deps.pulledCursors(tenantId, locationIds);
    const stores = locationIds.map((locationId) => {
      const seq = written.get(locationId);
      const cursor = pulled.get(locationId) ?? 0;
      const state: StoreState = seq === undefined ? 'queued' : cursor >= seq ? 'applied' : 'pending';
      return { location_id: locationId, state, feed_seq: seq ?? null, pulled_cursor: cursor };
    });
    const applied = stores.filter((s) => s.state === 'applied').length;
    return {
      id: publication.id,
      brand_id: publication.brand_id,
      change: publication.change,
      state: (publication.state === 'publishing'
        ? 'publishing'
        : applied === stores.length
          ? 'applied'
          : 'pending') as PublicationProgress,
      created_at: publication.created_at,
      published_at: publication.published_at,
      stores_total: stores.length,
      stores_written: written.size,
      stores_applied: applied,
      stores,
    };
  }

  const paged = <T extends { id: string }>(rows: T[], limit: number) => ({
    page: rows.slice(0, limit),
    next_cursor: rows.length > limit ? rows[limit - 1]!.id : null,
  });

  async function changeItem(tenantId: string, id: string, patch: Partial<MenuItemRow>, change: string) {
    const item = await requireItem(tenantId, id);
    await store.updateItem(tenantId, id, { ...patch, updated_at: now() });
    const publication = await publish(
      tenantId,
      item.brand_id,
      change,
      [id],
      await targets(tenantId, item.brand_id),
    );
    return { ...(await itemView(tenantId, id)), publication };
  }

  async function itemView(tenantId: string, id: string) {
    const row = await requireItem(tenantId, id);
    return toItem(row, await store.overrides(tenantId, [id]));
  }

  return {
    async createCategory(
      tenantId: string,
      input: { brand_id: string; name: string; position?: number | undefined },
    ) {
      await requireBrand(tenantId, input.brand_id);
      const at = now();
      const row: MenuCategoryRow = {
        tenant_id: tenantId,
        id: deps.newId(),
        brand_id: input.brand_id,
        name: input.name.trim(),
        position: input.position ?? 0,
        created_at: at,
        updated_at: at,
      };
      await store.insertCategory(row);
      const publication = await publish(
        tenantId,
        row.brand_id,
        'category',
        [row.id],
        await targets(tenantId, row.brand_id),
      );
      return { ...toCategory(row), publication };
    },

    async updateCategory(
      tenantId: string,
      id: string,
      patch: { name?: string | undefined; position?: number | undefined },
    ) {
      const current = await requireCategory(tenantId, id);
      await store.updateCategory(tenantId, id, {
        ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
        ...(patch.position !== undefined ? { position: patch.position } : {}),
        updated_at: now(),
      });
      const publication = await publish(
        tenantId,
        current.brand_id,
        'category',
        [id],
        await targets(tenantId, current.brand_id),
      );
      return { ...toCategory(await requireCategory(tenantId, id)), publication };
    },

    getCategory: async (tenantId: string, id: string) => toCategory(await requireCategory(tenantId, id)),

    async listCategories(tenantId: string, brandId: string, page: Page) {
      await requireBrand(tenantId, brandId);
      const { page: rows, next_cursor } = paged(
        await store.categories(tenantId, brandId, page.cursor, page.limit + 1),
        page.limit,
      );
      return { items: rows.map(toCategory), next_cursor };
    },

    async createItem(
      tenantId: string,
      input: {
        brand_id: string;
        category_id: string;
        name: string;
        description?: string | undefined;
        price_minor: number;
        available?: boolean | undefined;
      },
    ) {
      await requireBrand(tenantId, input.brand_id);
      const category = await requireCategory(tenantId, input.category_id);
      if (category.brand_id !== input.brand_id)
        throw new InvalidRequestError('The category is another brand’s', [
          { field: 'body.category_id', message: 'must be a category of brand_id' },
        ]);
      const at = now();
      const row: MenuItemRow = {
        tenant_id: tenantId,
        id: deps.newId(),
        brand_id: input.brand_id,
        category_id: input.category_id,
        name: input.name.trim(),
        description: input.description ?? '',
        price_minor: input.price_minor,
        available: input.available === false ? 0 : 1,
        created_at: at,
        updated_at: at,
      };
      await store.insertItem(row);
      const publication = await publish(
        tenantId,
        row.brand_id,
        'item',
        [row.id],
        await targets(tenantId, row.brand_id),
      );
      return { ...toItem(row), publication };
    },

    async updateItem(
      tenantId: string,
      id: string,
      patch: {
        name?: string | undefined;
        description?: string | undefined;
        category_id?: string | undefined;
      },
    ) {
      const item = await requireItem(tenantId, id);
      if (patch.category_id !== undefined) {
        const category = await requireCategory(tenantId, patch.category_id);
        if (category.brand_id !== item.brand_id)
          throw new InvalidRequestError('The category is another brand’s', [
            { field: 'body.category_id', message: 'must be a category of the item’s brand' },
          ]);
      }
      return changeItem(
        tenantId,
        id,
        {
          ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
          ...(patch.description !== undefined ? { description: patch.description } : {}),
          ...(patch.category_id !== undefined ? { category_id: patch.category_id } : {}),
        },
        'item',
      );
    },

    getItem: itemView,

    async listItems(
      tenantId: string,
      brandId: string,
      filter: { category_id?: string | undefined },
      page: Page,
    ) {
      await requireBrand(tenantId, brandId);
      const { page: rows, next_cursor } = paged(
        await store.items(tenantId, brandId, { categoryId: filter.category_id }, page.cursor, page.limit + 1),
        page.limit,
      );
      const overrides = await store.overrides(
        tenantId,
        rows.map((r) => r.id),
      );
      return {
        items: rows.map((r) =>
          toItem(
            r,
            overrides.filter((o) => o.item_id === r.id),
          ),
        ),
        next_cursor,
      };
    },

    /**
     * A price for the brand's every store (their own prices dropped), or for the stores named
     * (each keeps it until head office sets another or the brand's price for all).
     */
    async setPrice(tenantId: string, id: string, priceMinor: number, locationIds?: readonly string[]) {
      const item = await requireItem(tenantId, id);
      if (locationIds === undefined) {
        await store.clearOverrides(tenantId, id, 'price_minor', now());
        return changeItem(tenantId, id, { price_minor: priceMinor }, 'price');
      }
      const stores = await targets(tenantId, item.brand_id, locationIds);
      await store.setOverrides(tenantId, id, stores, { price_minor: priceMinor, updated_at: now() });
      const publication = await publish(tenantId, item.brand_id, 'price', [id], stores);
      return { ...(await itemView(tenantId, id)), publication };
    },

    async setAvailability(tenantId: string, id: string, available: boolean, locationIds?: readonly string[]) {
      const item = await requireItem(tenantId, id);
      if (locationIds === undefined) {
        await store.clearOverrides(tenantId, id, 'available', now());
        return changeItem(tenantId, id, { available: available ? 1 : 0 }, 'availability');
      }
      const stores = await targets(tenantId, item.brand_id, locationIds);
      await store.setOverrides(tenantId, id, stores, { available: available ? 1 : 0, updated_at: now() });
      const publication = await publish(tenantId, item.brand_id, 'availability', [id], stores);
      return { ...(await itemView(tenantId, id)), publication };
    },

    publication: progress,

    /** Waits for the publications under way (tests, and a clean stop). */
    settle: async () => {
      while (running.size > 0) await Promise.all([...running]);
    },

    /** Finishes the publications a stop interrupted, each where it stopped. */
    async resume() {
      for (const publication of await store.unfinishedPublications()) schedule(publication);
    },

    /**
     * Gives a store that starts over every row of its brand's menu it lacks (a new store's first
     * sync); rows it has are left as they are, its own changes included.
     */
    async fillStore(tenantId: string, locationId: string) {
      const brandId = await deps.brandOfLocation(tenantId, locationId);
      if (!brandId) return;
      const edits = await storeEdits(tenantId, locationId, await store.catalogIds(tenantId, brandId), true);
      if (edits.length > 0) await deps.editStore(tenantId, locationId, edits);
    },
  };
}

export type MenuService = ReturnType<typeof createMenuService>;
