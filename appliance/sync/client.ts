/**
 * The appliance's side of sync: pushes the outbox in batches, several in flight, and pulls the
 * cloud's changes by cursor. Every step that changes local state (marking changes answered,
 * landing pulled rows with the cursor) is one transaction, so a kill at any instant resumes
 * without losing or repeating anything: an unanswered batch is simply sent again, and the cloud
 * answers a repeated change id as a duplicate.
 */
import { type Dispatcher, Pool } from 'undici';
import type { Clock } from '../../shared/clock.ts';
import type { Change, ChangeOutcome, PullResult, PushResult, RowState } from '../../shared/sync/protocol.ts';
import type { ApplianceDatabase } from '../db/index.ts';
import type { Replica } from './replica.ts';

export interface SyncClientOptions {
  cloudUrl: string;
  credential: string;
  batchSize: number;
  /** Batches in flight at once at most; the window shrinks when the cloud pushes back. */
  maxInFlight: number;
  pullLimit: number;
  requestTimeoutMs: number;
}

interface OutboxRow {
  seq: number;
  change_id: string;
  table_name: string;
  row_id: string;
  operation: Change['op'];
  row_version: number;
  base_version: number;
  hlc: string;
  fields: string | null;
  doc: string | null;
  occurred_at: string;
}

/** Feed pages asked for ahead of the one landing. */
const PULL_PAGES_AHEAD = 3;

export class CloudUnavailableError extends Error {
  override name = 'CloudUnavailableError';
}

/** The cloud asked us to come back later (429), or is briefly unable to answer. */
export class BackPressureError extends Error {
  override name = 'BackPressureError';
  constructor(readonly retryAfterMs: number) {
    super(`the cloud asked to retry in ${retryAfterMs} ms`);
  }
}

export interface SyncRound {
  pushed: number;
  pulled: number;
  conflicts: number;
  rejected: number;
}

const toChange = (row: OutboxRow): Change => ({
  change_id: row.change_id,
  table: row.table_name,
  row_id: row.row_id,
  op: row.operation,
  base_version: row.base_version,
  version: row.row_version,
  hlc: row.hlc,
  fields: row.fields === null ? null : (JSON.parse(row.fields) as Record<string, unknown>),
  ...(row.doc !== null ? { doc: row.doc } : {}),
});

export function createSyncClient(
  db: ApplianceDatabase,
  replica: Replica,
  deps: { clock: Clock; observe(stamp: string): void; onAcknowledged?(latencyMs: number): void },
  options: SyncClientOptions,
) {
  const pool = new Pool(options.cloudUrl, { connections: options.maxInFlight + 2, pipelining: 1 });
  const now = () => deps.clock.now().toISOString();
  const pending = db.prepare(
    'select * from outbox where pushed_at is null and seq > ? order by seq limit ?',
  ) as unknown as { all(after: number, limit: number): OutboxRow[] };
  const depth = db.prepare(
    'select count(*) as n, min(occurred_at) as oldest from outbox where pushed_at is null',
  );
  // What waits behind a batch, in O(1) per batch (a count would read the whole backlog each
  // time): seqs only grow, so every row after the batch is pending, bar the rare one answered early.
  const newestSeq = db.prepare('select coalesce(max(seq), 0) as seq from outbox');
  const nextPending = db.prepare(
    'select occurred_at from outbox where pushed_at is null and seq > ? order by seq limit 1',
  );
  const queueBehind = (seq: number) => {
    const newest = (newestSeq.get() as { seq: number }).seq;
    const next = nextPending.get(seq) as { occurred_at: string } | undefined;
    return { queue_depth: Math.max(0, newest - seq), oldest_pending_at: next?.occurred_at ?? null };
  };
  const queueQuery = () => {
    const { n, oldest } = depth.get() as { n: number; oldest: string | null };
    return `queue_depth=${n}${oldest ? `&oldest_pending_at=${encodeURIComponent(oldest)}` : ''}`;
  };
  const markAnswered = db.prepare(
    'update outbox set pushed_at = ?, outcome = ?, outcome_reason = ? where change_id = ? and pushed_at is null',
  );
  // The rest of a row's lineage after a conflict: built on a version the cloud refused, so the
  // cloud's row stands over them too, and sending them could only overwrite it.
  const supersede = db.prepare(
    `update outbox set pushed_at = ?, outcome = 'superseded', outcome_reason = 'the cloud''s row stands'
     where table_name = ? and row_id = ? and pushed_at is null`,
  );
  const state = db.prepare('select * from sync_state where id = 1');
  const setState = (patch: Record<string, unknown>) => {
    const keys = Object.keys(patch);
    db.prepare(`update sync_state set ${keys.map((k) => `${k} = @${k}`).join(', ')} where id = 1`).run(patch);
  };
  let window = options.maxInFlight;

  async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Dispatcher.ResponseData;
    try {
      response = await pool.request({
        method,
        path,
        headers: {
          authorization: `Appliance ${options.credential}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        headersTimeout: options.requestTimeoutMs,
        bodyTimeout: options.requestTimeoutMs,
      });
    } catch (error) {
      throw new CloudUnavailableError(`cannot reach the cloud: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const text = await response.body.text();
    if (response.statusCode === 429 || response.statusCode === 503) {
      const retryAfter = Number(response.headers['retry-after'] ?? 1);
      throw new BackPressureError(Math.max(0.05, Number.isFinite(retryAfter) ? retryAfter : 1) * 1000);
    }
    if (response.statusCode >= 500)
      throw new CloudUnavailableError(`the cloud answered ${response.statusCode}`);
    const json = JSON.parse(text) as { data?: T; error?: { code: string; message: string } };
    if (response.statusCode >= 400 || json.data === undefined)
      throw new Error(
        `sync ${path} answered ${response.statusCode}: ${json.error?.code} ${json.error?.message}`,
      );
    return json.data;
  }

  /** Records the cloud's answers, and lands the rows it sent back, in one transaction. */
  const settle = (results: ChangeOutcome[], sentAt: Record<string, string>) =>
    replica.land(() => settleAnswers(results, sentAt));
  function settleAnswers(results: ChangeOutcome[], sentAt: Record<string, string>) {
    const at = now();
    let conflicts = 0;
    let rejected = 0;
    for (const result of results) {
      if (markAnswered.run(at, result.status, result.reason ?? null, result.change_id).changes === 0)
        continue;
      if (result.status === 'rejected') rejected += 1;
      if (result.status === 'conflict') conflicts += 1;
      if (result.status === 'conflict' && result.row) supersede.run(at, result.row.table, result.row.row_id);
      if (result.row) replica.apply(result.row as RowState, { force: result.status === 'conflict' });
    }
    if (conflicts + rejected > 0)
      db.prepare('update sync_state set conflicts = conflicts + ?, rejected = rejected + ? where id = 1').run(
        conflicts,
        rejected,
      );
    setState({ last_push_at: at });
    const ackedAt = Date.parse(at);
    for (const result of results) {
      const sent = sentAt[result.change_id];
      if (sent) deps.onAcknowledged?.(ackedAt - Date.parse(sent));
    }
    return { conflicts, rejected };
  }

  /**
   * Takes the next batches from the outbox. A row's changes are never split across batches in
   * flight at once: the cloud must see them in order, each based on the one before.
   */
  function nextBatches(after: number, count: number, busyRows: Set<string>) {
    const rows = pending.all(after, options.batchSize * count);
    const batches: OutboxRow[][] = [];
    let current: OutboxRow[] = [];
    const rowsOfBatches = new Set<string>();
    const thisBatch = new Set<string>();
    for (const row of rows) {
      const key = `${row.table_name}/${row.row_id}`;
      if (busyRows.has(key) || (rowsOfBatches.has(key) && !thisBatch.has(key))) break;
      current.push(row);
      thisBatch.add(key);
      if (current.length === options.batchSize) {
        batches.push(current);
        for (const k of thisBatch) rowsOfBatches.add(k);
        thisBatch.clear();
        current = [];
        if (batches.length === count) break;
      }
    }
    if (current.length > 0 && batches.length < count) batches.push(current);
    return batches;
  }

  async function pushBatch(batch: OutboxRow[]) {
    const result = await request<PushResult>('POST', '/v1/sync/push', {
      changes: batch.map(toChange),
      ...queueBehind(batch.at(-1)!.seq),
    });
    deps.observe(result.server_hlc);
    return settle(result.results, Object.fromEntries(batch.map((row) => [row.change_id, row.occurred_at])));
  }

  /** Drains the outbox with up to `window` batches in flight; halves the window when pushed back. */
  async function push(): Promise<{ pushed: number; conflicts: number; rejected: number }> {
    const totals = { pushed: 0, conflicts: 0, rejected: 0 };
    const inFlight = new Map<Promise<void>, Set<string>>();
    let after = 0;
    let failure: unknown;
    for (;;) {
      const free = window - inFlight.size;
      if (failure === undefined && free > 0) {
        const busy = new Set([...inFlight.values()].flatMap((rows) => [...rows]));
        for (const batch of nextBatches(after, free, busy)) {
          after = batch.at(-1)!.seq;
          const task: Promise<void> = pushBatch(batch)
            .then(
              (outcome) => {
                totals.pushed += batch.length;
                totals.conflicts += outcome.conflicts;
                totals.rejected += outcome.rejected;
                window = Math.min(options.maxInFlight, window + 1);
              },
              (error: unknown) => {
                failure ??= error;
                if (error instanceof BackPressureError) window = Math.max(1, Math.floor(window / 2));
              },
            )
            .finally(() => inFlight.delete(task));
          inFlight.set(task, new Set(batch.map((r) => `${r.table_name}/${r.row_id}`)));
        }
      }
      if (inFlight.size > 0) {
        await Promise.race(inFlight.keys());
        continue;
      }
      if (failure !== undefined) throw failure;
      // Nothing in flight: done, unless changes were held back behind their row's batch or
      // written meanwhile; those go next, from the oldest.
      if (pending.all(0, 1).length === 0) return totals;
      after = 0;
    }
  }

  interface SnapshotPage {
    rows: RowState[];
    next_after: string | null;
    cursor: number;
    server_hlc: string;
  }
  const snapshotPage = (after: string) =>
    request<SnapshotPage>(
      'GET',
      `/v1/sync/snapshot?after=${encodeURIComponent(after)}&limit=${options.pullLimit}`,
    );
  const feedPage = (cursor: number, queue: string) =>
    request<PullResult>('GET', `/v1/sync/pull?cursor=${cursor}&limit=${options.pullLimit}&${queue}`);
  /** Asks for the next page while this one lands; a failure surfaces when it is awaited. */
  const prefetch = <T>(page: Promise<T>) => {
    page.catch(() => undefined);
    return page;
  };

  /** Lands every snapshot page, then sets the cursor the snapshot named. */
  async function snapshot() {
    const saved = state.get() as { snapshot_after: string | null; snapshot_cursor: number | null };
    let cursor = saved.snapshot_cursor;
    let next = snapshotPage(saved.snapshot_after ?? '');
    let landed = 0;
    for (;;) {
      const page = await next;
      deps.observe(page.server_hlc);
      cursor ??= page.cursor;
      if (page.next_after !== null) next = prefetch(snapshotPage(page.next_after));
      replica.land(() => {
        for (const row of page.rows) replica.apply(row);
        if (page.next_after === null) {
          setState({
            initialized: 1,
            cursor,
            snapshot_after: null,
            snapshot_cursor: null,
            last_pull_at: now(),
          });
        } else {
          setState({ snapshot_after: page.next_after, snapshot_cursor: cursor });
        }
      });
      landed += page.rows.length;
      if (page.next_after === null) return landed;
    }
  }

  /**
   * Pulls the feed from the cursor to its end, each page landing with its cursor. Feed seqs are
   * dense (one counter per store), so the next pages start where this one would end: they are
   * asked for ahead, a few at once, while this one lands. A page that ends elsewhere (a pruned
   * feed) makes the guesses after it useless, and the page at its real end is asked for instead.
   */
  async function pull() {
    let pulled = 0;
    const asked = new Map<number, Promise<PullResult>>();
    const ask = (from: number, queue: string) => {
      let page = asked.get(from);
      if (!page) {
        page = prefetch(feedPage(from, queue));
        asked.set(from, page);
      }
      return page;
    };
    const queue = queueQuery();
    for (;;) {
      const { cursor, initialized } = state.get() as { cursor: number; initialized: number };
      if (!initialized) {
        asked.clear();
        pulled += await snapshot();
        continue;
      }
      const page = await ask(cursor, queue);
      for (const from of asked.keys()) if (from <= cursor) asked.delete(from);
      deps.observe(page.server_hlc);
      if (page.reset) {
        asked.clear();
        setState({ initialized: 0, snapshot_after: null, snapshot_cursor: null });
        continue;
      }
      if (page.has_more)
        for (let ahead = 0; ahead < PULL_PAGES_AHEAD; ahead += 1)
          ask(page.cursor + ahead * options.pullLimit, queue);
      replica.land(() => {
        for (const change of page.changes) replica.apply(change);
        setState({ cursor: page.cursor, last_pull_at: now() });
      });
      pulled += page.changes.length;
      if (!page.has_more) return pulled;
    }
  }

  return {
    /** One full round: pull what the cloud has (a first run starts from a snapshot), push, pull again. */
    async sync(): Promise<SyncRound> {
      try {
        const pulled = await pull();
        const pushed = await push();
        // Once more after pushing: what the cloud changed meanwhile, and the queue as it now
        // stands (the reports of batches in flight together may land in any order).
        const caughtUp = pushed.pushed > 0 ? await pull() : 0;
        setState({ last_success_at: now(), last_error: null });
        return { pulled: pulled + caughtUp, ...pushed };
      } catch (error) {
        setState({ last_error: (error as Error).message.slice(0, 500) });
        throw error;
      }
    },
    /** Holds an open request the cloud answers when someone asks this store to sync now. */
    waitForTrigger: (timeoutSeconds: number) =>
      request<{ triggered: boolean; priority: string | null }>(
        'GET',
        `/v1/sync/wait?timeout_seconds=${timeoutSeconds}&${queueQuery()}`,
      ),
    queue: () => depth.get() as { n: number; oldest: string | null },
    /** Ends every connection at once: the open wait request included, which would hold a close for ~25 s. */
    close: () => pool.destroy(),
  };
}

export type SyncClient = ReturnType<typeof createSyncClient>;
