import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { request } from 'undici';

/**
 * An update's archive fetched into a part file that outlives the process: a download cut short
 * (the network, a cancel, a kill -9, a power cut) goes on from the bytes already on disk the next
 * time the same archive is asked for, with a Range request. The SHA-256 covers the whole file, the
 * resumed bytes included, so a part that was damaged on disk fails the digest and starts over.
 */
export interface DownloadRequest {
  url: string;
  size: number;
  sha256: string;
  /** Where the bytes go; named by the digest, so any command for the same archive finds it. */
  part: string;
  signal?: AbortSignal | undefined;
  /** Bytes on disk so far, the resumed ones included. */
  onProgress?: ((received: number) => void) | undefined;
  log: Logger;
  /** How long the server may stay silent before the attempt is given up (and resumed later). */
  timeoutMs?: number | undefined;
}

/** The bytes are not the ones the manifest pins: the part is gone, the next attempt starts over. */
export class ArchiveMismatchError extends Error {
  override name = 'ArchiveMismatchError';
}

const sizeOf = (file: string) =>
  stat(file).then(
    (stats) => stats.size,
    () => 0,
  );

async function hashOf(file: string, hash: Hash = createHash('sha256')) {
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash;
}

/** `bytes <start>-<end>/<total|*>`, as RFC 9110 writes it. */
function contentRange(header: string | string[] | undefined) {
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(String(header ?? '').trim());
  if (!match) return undefined;
  return {
    start: Number(match[1]),
    end: Number(match[2]),
    total: match[3] === '*' ? undefined : Number(match[3]),
  };
}

/** Fetches what is missing of the archive and checks the whole file; resolves once it is all there. */
export async function downloadArchive(download: DownloadRequest): Promise<void> {
  let have = await sizeOf(download.part);
  if (have > download.size) {
    await rm(download.part, { force: true });
    have = 0;
  }
  if (have === download.size) {
    const digest = (await hashOf(download.part)).digest('hex');
    if (digest === download.sha256) return;
    await rm(download.part, { force: true });
    have = 0;
  }
  await fetchFrom(download, have);
}

/** Opens the request for the bytes from `have` on; answers the response and where its body starts. */
async function open(download: DownloadRequest, have: number) {
  const timeout = download.timeoutMs ?? 60_000;
  const response = await request(download.url, {
    method: 'GET',
    headers: have > 0 ? { range: `bytes=${have}-` } : {},
    signal: download.signal ?? null,
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  if (response.statusCode === 200) {
    const length = Number(response.headers['content-length'] ?? download.size);
    if (length === download.size) return { response, start: 0 };
    await response.body.dump();
    throw new ArchiveMismatchError(`the artifact is ${length} bytes, its manifest says ${download.size}`);
  }
  if (response.statusCode === 206 && have > 0) {
    const range = contentRange(response.headers['content-range']);
    const fits =
      range?.start === have &&
      range.end === download.size - 1 &&
      (range.total === undefined || range.total === download.size);
    if (fits) return { response, start: have };
  }
  await response.body.dump();
  // The server does not know the part we hold (416) or answered another range than asked: the
  // part cannot be trusted to line up with what it sends, so the whole archive comes again.
  if (have > 0 && (response.statusCode === 206 || response.statusCode === 416)) {
    download.log.warn(
      { status: response.statusCode, range: response.headers['content-range'] ?? null, have },
      'update download cannot resume from the part on disk; starting over',
    );
    return undefined;
  }
  throw new Error(`the artifact answered HTTP ${response.statusCode}`);
}

async function fetchFrom(download: DownloadRequest, have: number): Promise<void> {
  const opened = await open(download, have);
  if (!opened) {
    await rm(download.part, { force: true });
    return fetchFrom(download, 0);
  }
  const { response, start } = opened;
  const hash = start > 0 ? await hashOf(download.part) : createHash('sha256');
  let received = start;
  if (start > 0) download.onProgress?.(received);
  const body = response.body as unknown as Readable;
  let tooLarge = false;
  body.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > download.size) {
      tooLarge = true;
      body.destroy(new ArchiveMismatchError('the artifact is larger than its manifest says'));
      return;
    }
    hash.update(chunk);
    download.onProgress?.(received);
  });
  const file = createWriteStream(download.part, { flags: start > 0 ? 'a' : 'w' });
  try {
    await pipeline(body, file, { signal: download.signal ?? undefined });
  } catch (error) {
    if (tooLarge) await rm(download.part, { force: true });
    throw error;
  }
  if (received < download.size)
    throw new Error(`the download ended at ${received} of ${download.size} bytes; it resumes from there`);
  if (hash.digest('hex') !== download.sha256) {
    await rm(download.part, { force: true });
    throw new ArchiveMismatchError('the artifact does not match its SHA-256');
  }
}
