import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { request } from 'undici';
import type { Clock } from '../../shared/clock.ts';

/**
 * The cloud's revoked device certificates, as the store's broker needs them: looked up at every
 * connection, fetched from the cloud every few minutes (only what changed since the last fetch),
 * and kept on disk, so a revocation holds while the cloud is unreachable and after a restart.
 * A revoked certificate is refused at its next connection at the latest.
 */
export interface RevocationListOptions {
  cloudUrl: string;
  file: string;
  clock: Clock;
  log: Logger;
  refreshMs?: number;
}

interface Saved {
  fetched_at: string | null;
  revoked: Array<{ serial: string; not_after: string }>;
}

const normalize = (serial: string) => serial.toLowerCase().replace(/^0+/, '');

function load(file: string): Saved {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Saved;
  } catch {
    return { fetched_at: null, revoked: [] };
  }
}

export function createRevocationList(options: RevocationListOptions) {
  const saved = load(options.file);
  const notAfter = new Map(saved.revoked.map((entry) => [normalize(entry.serial), entry.not_after]));
  let fetchedAt = saved.fetched_at;
  let timer: NodeJS.Timeout | undefined;

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

  async function refresh() {
    const query = fetchedAt ? `?since=${encodeURIComponent(fetchedAt)}` : '';
    const response = await request(`${options.cloudUrl}/v1/mdm/certificates/revoked${query}`);
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new Error(`the cloud answered HTTP ${response.statusCode}`);
    }
    const { data } = (await response.body.json()) as {
      data: { generated_at: string; revoked: Array<{ serial: string; not_after: string }> };
    };
    for (const entry of data.revoked) notAfter.set(normalize(entry.serial), entry.not_after);
    fetchedAt = data.generated_at;
    await persist();
    return data.revoked.length;
  }

  return {
    /** The broker's question at each connection. */
    isRevoked: (serialHex: string) => notAfter.has(normalize(serialHex)),
    refresh,
    start() {
      const every = options.refreshMs ?? 5 * 60_000;
      const run = () =>
        refresh().catch((error: unknown) =>
          options.log.warn({ err: error }, 'revocation list not refreshed; keeping the one on disk'),
        );
      void run();
      timer = setInterval(run, every);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}

export type RevocationList = ReturnType<typeof createRevocationList>;
