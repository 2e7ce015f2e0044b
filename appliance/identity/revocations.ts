import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { request } from 'undici';
import type { Clock } from '../../shared/clock.ts';

/**
 * The cloud's revoked device certificates, as the store's broker needs them: looked up at every
 * connection, and kept on disk, so a revocation holds while the cloud is unreachable and after a
 * restart. They arrive three ways: pushed over the fleet link the moment the cloud revokes one
 * (`add`), fetched at start and whenever the fleet link comes back (only what changed since the
 * last fetch), and polled every five minutes as the safety net. Whoever listens (`onRevoked`: the
 * broker) is told of each serial learned, and closes the sessions it had admitted.
 */
export interface RevocationListOptions {
  cloudUrl: string;
  file: string;
  clock: Clock;
  log: Logger;
  refreshMs?: number;
  /** A fetch the cloud has not answered by then has failed. */
  requestTimeoutMs?: number;
}

interface Entry {
  serial: string;
  not_after: string;
}

interface Saved {
  fetched_at: string | null;
  revoked: Entry[];
}

/** How long the start waits for the first fetch before it admits devices on the list kept on disk. */
export const CATCH_UP_WAIT_MS = 5_000;

/**
 * Each fetch reaches this far behind the last one's `generated_at`: a revocation is stamped when
 * it starts and seen once it commits, so one a fetch ran past would never show in the next
 * (replicas' clocks differ a little too). Seeing a serial twice changes nothing.
 */
export const SINCE_OVERLAP_MS = 60_000;

const normalize = (serial: string) => serial.toLowerCase().replace(/^0+/, '');

function load(file: string): Saved {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Saved;
  } catch {
    return { fetched_at: null, revoked: [] };
  }
}

export function createRevocationList(options: RevocationListOptions) {
  const { log } = options;
  const saved = load(options.file);
  const notAfter = new Map(saved.revoked.map((entry) => [normalize(entry.serial), entry.not_after]));
  const listeners = new Set<(serials: string[]) => void>();
  let fetchedAt = saved.fetched_at;
  let timer: NodeJS.Timeout | undefined;
  // Fetches and writes one at a time: the `since` cursor only moves forward, the file is never
  // written by two at once, and a fetch asked for during another starts after it (it may have
  // been asked for because of a revocation the one in flight is too early to see).
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>) => {
    const turn = queue.then(work, work);
    queue = turn.catch(() => undefined);
    return turn;
  };

  async function persist() {
    const now = options.clock.now().toISOString();
    // An expired certificate is refused by TLS anyway: it need not be remembered.
    for (const [serial, until] of notAfter) if (until <= now) notAfter.delete(serial);
    const content: Saved = {
      fetched_at: fetchedAt,
      revoked: [...notAfter].map(([serial, until]) => ({ serial, not_after: until })),
    };
    await writeFile(`${options.file}.tmp`, JSON.stringify(content));
    await rename(`${options.file}.tmp`, options.file);
  }

  /** Remembers the entries; answers the serials that are new here, and tells the listeners of them. */
  function learn(entries: Entry[]) {
    const learned: string[] = [];
    for (const entry of entries) {
      const serial = normalize(entry.serial);
      if (!notAfter.has(serial)) learned.push(serial);
      notAfter.set(serial, entry.not_after);
    }
    if (learned.length === 0) return learned;
    log.warn({ serials: learned }, 'certificates revoked by the cloud; refused from now on');
    for (const listener of listeners) {
      try {
        listener(learned);
      } catch (error) {
        log.error({ err: error }, 'a revocation listener failed');
      }
    }
    return learned;
  }

  async function fetchSince() {
    const since = fetchedAt && new Date(Date.parse(fetchedAt) - SINCE_OVERLAP_MS).toISOString();
    const query = since ? `?since=${encodeURIComponent(since)}` : '';
    const timeout = options.requestTimeoutMs ?? 10_000;
    const response = await request(`${options.cloudUrl}/v1/mdm/certificates/revoked${query}`, {
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new Error(`the cloud answered HTTP ${response.statusCode}`);
    }
    const { data } = (await response.body.json()) as {
      data: { generated_at: string; revoked: Entry[] };
    };
    learn(data.revoked);
    fetchedAt = data.generated_at;
    await persist();
    return data.revoked.length;
  }

  const refresh = () => inTurn(fetchSince);

  return {
    /** The broker's question at each connection. */
    isRevoked: (serialHex: string) => notAfter.has(normalize(serialHex)),

    /** What the cloud revoked since the last fetch; answers how many entries it sent. */
    refresh,

    /** Certificates the cloud pushed (the fleet link's `revoke_certificates`), kept on disk at once. */
    async add(entries: Entry[]) {
      const learned = learn(entries);
      if (learned.length > 0) await inTurn(persist);
      return { added: learned.length, known: notAfter.size };
    },

    /** Told of serials as they are learned, however they came; answers the way to stop. */
    onRevoked(listener: (serials: string[]) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },

    /**
     * The fetch at start, waited for at most `waitMs`: the store must open without the cloud,
     * and then admits devices on the list kept on disk (and says so). A fetch that answers later
     * still counts: what it brings is refused, and its sessions closed, from then on.
     */
    async catchUp(waitMs = CATCH_UP_WAIT_MS): Promise<'fresh' | 'stale'> {
      let timeout: NodeJS.Timeout | undefined;
      const waited = new Promise<'stale'>((resolve) => {
        timeout = setTimeout(() => resolve('stale'), waitMs);
      });
      const fetched = refresh().then(
        () => 'fresh' as const,
        (error: unknown) => error as Error,
      );
      const outcome = await Promise.race([fetched, waited]);
      clearTimeout(timeout);
      const kept = { revoked: notAfter.size, fetchedAt };
      if (outcome === 'fresh') {
        log.info(kept, 'revocation list up to date before devices are admitted');
        return 'fresh';
      }
      const reason = outcome === 'stale' ? `no answer within ${waitMs} ms` : outcome.message;
      log.warn(
        { ...kept, reason },
        'cloud unreachable: devices are admitted on the revocation list kept on disk',
      );
      return 'stale';
    },

    /** The safety net: a fetch every `refreshMs` (five minutes), whatever the fleet link does. */
    start() {
      const every = options.refreshMs ?? 5 * 60_000;
      timer = setInterval(() => {
        refresh().catch((error: unknown) =>
          log.warn({ err: error }, 'revocation list not refreshed; keeping the one on disk'),
        );
      }, every);
      timer.unref();
    },

    stop() {
      clearInterval(timer);
      listeners.clear();
    },
  };
}

export type RevocationList = ReturnType<typeof createRevocationList>;
