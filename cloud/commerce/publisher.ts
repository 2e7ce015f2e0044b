import type { Clock } from '../../shared/clock.ts';
import { InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import { createMenuStore } from './menu-store.ts';
import type { EditStore } from './service.ts';
import { createStoreEdits, decidedBy } from './store-edits.ts';
import type { PublicationRow } from './tables.ts';

export interface PublisherDeps {
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
  /** Told as a publication starts, as each of its stores is written, and once all are. Must not throw. */
  onProgress?: ((tenantId: string, progress: PublicationStep) => void) | undefined;
  /** Stores written at once while publishing (PostgreSQL takes several; SQLite has one writer). */
  parallelStores?: number | undefined;
}

/** Where a publication stands as the publisher writes it; whether stores pulled it is `progress`. */
export interface PublicationStep {
  id: string;
  brand_id: string;
  change: string;
  state: 'publishing' | 'published';
  stores_total: number;
  stores_written: number;
}

type StoreState = 'queued' | 'pending' | 'applied';
type PublicationProgress = 'publishing' | 'pending' | 'applied';

export const brandNotFound = () => new NotFoundError('Brand', 'BRAND_NOT_FOUND');
export const locationNotFound = () => new NotFoundError('Location', 'LOCATION_NOT_FOUND');
const publicationNotFound = () => new NotFoundError('Publication', 'PUBLICATION_NOT_FOUND');
const notOfBrand = (locationId: string) =>
  new InvalidRequestError('A store named is not of the brand', [
    { field: 'body.location_ids', message: `${locationId} is a store of another brand` },
  ]);

/**
 * Head office's catalog on its way to the stores. A change of any brand row (a category, an item,
 * a stock item, a station, or an item's price, recipe or route) is a publication: the brand's
 * rows are written into each affected store's synced rows (server_wins, one transaction per
 * store), and the publication shows, store by store, when the store's pull has passed it. A
 * publication is recorded before its first store is written, so one that a restart interrupted
 * is finished by `resume`.
 */
export function createPublisher(deps: PublisherDeps) {
  const store = createMenuStore(deps.db);
  const rows = createStoreEdits(deps.db);
  const now = () => deps.clock.now().toISOString();
  const parallel = Math.max(1, deps.parallelStores ?? 1);
  // One brand's publications reach its stores in the order they were made.
  const lanes = new Map<string, Promise<void>>();
  const running = new Set<Promise<void>>();

  async function writeStore(publication: PublicationRow, locationId: string) {
    const tenantId = publication.tenant_id;
    const edits = await rows.storeEdits(
      tenantId,
      locationId,
      JSON.parse(publication.catalog_ids),
      decidedBy(publication.change),
    );
    const { last_seq } = await deps.editStore(tenantId, locationId, edits);
    await store.insertPublicationStore({
      tenant_id: tenantId,
      publication_id: publication.id,
      location_id: locationId,
      feed_seq: last_seq,
      written_at: now(),
    });
  }

  function tell(publication: PublicationRow, state: PublicationStep['state'], written: number) {
    deps.onProgress?.(publication.tenant_id, {
      id: publication.id,
      brand_id: publication.brand_id,
      change: publication.change,
      state,
      stores_total: (JSON.parse(publication.location_ids) as string[]).length,
      stores_written: written,
    });
  }

  async function fanOut(publication: PublicationRow) {
    const written = new Set(
      (await store.publicationStores(publication.tenant_id, publication.id)).map((s) => s.location_id),
    );
    const queue = (JSON.parse(publication.location_ids) as string[]).filter((id) => !written.has(id));
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        await writeStore(publication, next);
        written.add(next);
        tell(publication, 'publishing', written.size);
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, worker));
    await store.finishPublication(publication.tenant_id, publication.id, now());
    tell(publication, 'published', written.size);
  }

  /** Runs a publication after the brand's earlier ones; a failure is logged and left for `resume`. */
  function schedule(publication: PublicationRow) {
    const lane = `${publication.tenant_id}/${publication.brand_id}`;
    const run = (lanes.get(lane) ?? Promise.resolve())
      .then(() => fanOut(publication))
      .catch((error: unknown) =>
        deps.log?.warn(
          { err: error, publication: publication.id },
          'publishing a catalog change stopped; it resumes on restart',
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

  return {
    async requireBrand(tenantId: string, brandId: string) {
      if (!(await deps.brandExists(tenantId, brandId))) throw brandNotFound();
    },

    /** The stores named, each checked to be a store of the brand; all the brand's when none are. */
    async targets(tenantId: string, brandId: string, locationIds?: readonly string[]) {
      if (locationIds === undefined) return deps.locationsOfBrand(tenantId, brandId);
      const unique = [...new Set(locationIds)];
      for (const locationId of unique) {
        const brand = await deps.brandOfLocation(tenantId, locationId);
        if (brand === undefined) throw locationNotFound();
        if (brand !== brandId) throw notOfBrand(locationId);
      }
      return unique;
    },

    brandOfLocation: deps.brandOfLocation,
    locationsOfBrand: deps.locationsOfBrand,

    /**
     * Publishes a change of some catalog rows to the stores named (every store of the brand when
     * none are). `change` names what it decides at the store (see store-edits.ts).
     */
    async publish(
      tenantId: string,
      brandId: string,
      change: string,
      catalogIds: string[],
      locationIds?: readonly string[],
    ) {
      const stores =
        locationIds === undefined ? await deps.locationsOfBrand(tenantId, brandId) : [...locationIds];
      const publication: PublicationRow = {
        tenant_id: tenantId,
        id: deps.newId(),
        brand_id: brandId,
        change,
        catalog_ids: JSON.stringify(catalogIds),
        location_ids: JSON.stringify(stores),
        state: 'publishing',
        created_at: now(),
        published_at: null,
      };
      await store.insertPublication(publication);
      tell(publication, 'publishing', 0);
      schedule(publication);
      return { id: publication.id, state: 'publishing' as const, stores_total: stores.length };
    },

    async progress(tenantId: string, id: string) {
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
      const state: PublicationProgress =
        publication.state === 'publishing' ? 'publishing' : applied === stores.length ? 'applied' : 'pending';
      return {
        id: publication.id,
        brand_id: publication.brand_id,
        change: publication.change,
        state,
        created_at: publication.created_at,
        published_at: publication.published_at,
        stores_total: stores.length,
        stores_written: written.size,
        stores_applied: applied,
        stores,
      };
    },

    /** Waits for the publications under way (tests, and a clean stop). */
    settle: async () => {
      while (running.size > 0) await Promise.all([...running]);
    },

    /**
     * Finishes the publications a stop interrupted, each where it stopped. The look for them is
     * work under way too: a stop waits for it, and a failed look is logged, not left unhandled
     * (a cloud stopped right after it started closed its store under the query).
     */
    async resume() {
      const finding = store.unfinishedPublications().then(
        (publications) => {
          for (const publication of publications) schedule(publication);
        },
        (error: unknown) =>
          deps.log?.warn({ err: error }, 'unfinished publications not read; they resume at the next start'),
      );
      running.add(finding);
      void finding.finally(() => running.delete(finding));
      await finding;
    },

    /**
     * Gives a store that starts over every row of its brand's catalog it lacks (a new store's
     * first sync): menu, stock items, recipes, stations and routing. Rows it has are left as they
     * are, its own changes included.
     */
    async fillStore(tenantId: string, locationId: string) {
      const brandId = await deps.brandOfLocation(tenantId, locationId);
      if (!brandId) return;
      const catalogIds = await rows.brandCatalogIds(tenantId, brandId);
      const edits = await rows.storeEdits(tenantId, locationId, catalogIds, new Set());
      if (edits.length > 0) await deps.editStore(tenantId, locationId, edits);
    },
  };
}

export type Publisher = ReturnType<typeof createPublisher>;
