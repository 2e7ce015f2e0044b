import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createRevocationList, SINCE_OVERLAP_MS } from '../../../appliance/identity/revocations.ts';
import { createManualClock } from '../../../shared/clock.ts';

const NOW = '2026-06-10T19:00:00.000Z';
const LATER = '2026-09-08T19:00:00.000Z';

function capturedLog() {
  const lines: Array<{ msg: string; [field: string]: unknown }> = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, find: (msg: string) => lines.filter((line) => line.msg === msg) };
}

/** A cloud that answers the revocation list as `answer` says, and keeps the queries it was asked. */
async function fakeCloud(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const queries: string[] = [];
  const server: Server = createServer((req, res) => {
    queries.push(new URL(req.url ?? '/', 'http://cloud').search);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    queries,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The `since` a fetch after one answered at `generatedAt` asks with: a little before it. */
const sinceAfter = (generatedAt: string) =>
  `?since=${encodeURIComponent(new Date(Date.parse(generatedAt) - SINCE_OVERLAP_MS).toISOString())}`;

const revokedList = (serials: string[], generatedAt = NOW) =>
  JSON.stringify({
    data: { generated_at: generatedAt, revoked: serials.map((serial) => ({ serial, not_after: LATER })) },
  });

describe('the revocation list as the fleet link and the start feed it', () => {
  const closers: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  function listFor(cloudUrl: string, requestTimeoutMs?: number) {
    const dir = mkdtempSync(join(tmpdir(), 'revocations-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const captured = capturedLog();
    const options = {
      cloudUrl,
      file: join(dir, 'revoked.json'),
      clock: createManualClock(NOW),
      log: captured.log,
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    };
    const list = createRevocationList(options);
    closers.push(() => list.stop());
    return { list, options, ...captured };
  }

  it('keeps pushed certificates on disk at once, and tells its listeners of new serials only', async () => {
    const { list, options } = listFor('http://127.0.0.1:9');
    const told: string[][] = [];
    list.onRevoked((serials) => told.push(serials));
    expect(await list.add([{ serial: '00AB12', not_after: LATER }])).toEqual({ added: 1, known: 1 });
    expect(
      await list.add([
        { serial: 'ab12', not_after: LATER },
        { serial: 'cd34', not_after: LATER },
      ]),
    ).toEqual({ added: 1, known: 2 });
    expect(told).toEqual([['ab12'], ['cd34']]);
    expect(list.isRevoked('AB12')).toBe(true);
    // A restart (the cloud away) finds them on disk.
    const again = createRevocationList(options);
    expect(again.isRevoked('ab12') && again.isRevoked('cd34')).toBe(true);
  });

  it('answers fresh once the cloud answered, and tells what the fetch brought', async () => {
    const cloud = await fakeCloud((_req, res) => res.end(revokedList(['ef56'])));
    closers.push(cloud.close);
    const { list, find } = listFor(cloud.url);
    const told: string[][] = [];
    list.onRevoked((serials) => told.push(serials));
    expect(await list.catchUp(2000)).toBe('fresh');
    expect(told).toEqual([['ef56']]);
    expect(find('revocation list up to date before devices are admitted')).toHaveLength(1);
    // The next fetch asks only for what came since this one.
    await list.refresh();
    expect(cloud.queries).toEqual(['', sinceAfter(NOW)]);
    // Nothing new: nobody is told again.
    expect(told).toHaveLength(1);
  });

  it('waits a bounded time for a cloud that does not answer, keeps the list on disk, and says so', async () => {
    const held: ServerResponse[] = [];
    const cloud = await fakeCloud((_req, res) => void held.push(res));
    closers.push(cloud.close);
    const { list, options, find } = listFor(cloud.url);
    await list.add([{ serial: 'aa11', not_after: LATER }]);
    const started = Date.now();
    expect(await list.catchUp(300)).toBe('stale');
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(2000);
    expect(find('cloud unreachable: devices are admitted on the revocation list kept on disk')).toEqual([
      expect.objectContaining({ revoked: 1, reason: 'no answer within 300 ms' }),
    ]);
    expect(list.isRevoked('aa11')).toBe(true);

    // The answer that comes late still counts: its serials are told the moment it lands.
    const told = new Promise<string[]>((resolve) => list.onRevoked(resolve));
    held[0]!.end(revokedList(['bb22']));
    expect(await told).toEqual(['bb22']);
    await expect.poll(() => createRevocationList(options).isRevoked('bb22'), { timeout: 2000 }).toBe(true);
  });

  it('says why when the cloud refuses at once, without waiting out the bound', async () => {
    const cloud = await fakeCloud((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    closers.push(cloud.close);
    const { list, find } = listFor(cloud.url);
    const started = Date.now();
    expect(await list.catchUp(10_000)).toBe('stale');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(find('cloud unreachable: devices are admitted on the revocation list kept on disk')).toEqual([
      expect.objectContaining({ reason: 'the cloud answered HTTP 503' }),
    ]);
  });

  it('fetches one at a time, each asking from where the one before ended', async () => {
    let turn = 0;
    const cloud = await fakeCloud((_req, res) => {
      turn += 1;
      const generatedAt = new Date(Date.parse(NOW) + turn * 1000).toISOString();
      // The first answer is slow: the second fetch must not overtake it.
      setTimeout(() => res.end(revokedList([`c${turn}`], generatedAt)), turn === 1 ? 200 : 0);
    });
    closers.push(cloud.close);
    const { list } = listFor(cloud.url);
    await Promise.all([list.refresh(), list.refresh()]);
    expect(cloud.queries).toEqual(['', sinceAfter('2026-06-10T19:00:01.000Z')]);
    expect(list.isRevoked('c1') && list.isRevoked('c2')).toBe(true);
  });
});
