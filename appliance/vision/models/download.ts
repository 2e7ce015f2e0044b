/**
 * A model's download: streamed to a temporary file in the model's folder with its SHA-256 taken on
 * the way, flushed to disk, and renamed into place only when the digest and size are the ones the
 * command promised. Whatever goes wrong, the temporary file is gone afterwards.
 */
import { createHash, randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Dispatcher, request } from 'undici';
import { syncDir } from './files.ts';

export class DownloadError extends Error {
  override name = 'DownloadError';
}

export interface DownloadRequest {
  url: string;
  credential: string;
  sha256: string;
  size: number;
  /** The file to end up with. */
  target: string;
  signal?: AbortSignal | undefined;
  dispatcher?: Dispatcher | undefined;
  /** Bytes received so far, as they arrive. */
  onBytes(received: number): void;
}

/** No answer (or no next piece of it) for this long is a dead connection. */
const IDLE_TIMEOUT_MS = 60_000;

async function fetchBody(job: DownloadRequest) {
  const response = await request(job.url, {
    method: 'GET',
    headers: { authorization: `Appliance ${job.credential}` },
    signal: job.signal,
    headersTimeout: IDLE_TIMEOUT_MS,
    bodyTimeout: IDLE_TIMEOUT_MS,
    ...(job.dispatcher ? { dispatcher: job.dispatcher } : {}),
  }).catch((error: Error) => {
    if (job.signal?.aborted) throw new DownloadError('cancelled', { cause: error });
    throw new DownloadError(`the download did not start: ${error.message}`, { cause: error });
  });
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new DownloadError(`the cloud answered ${response.statusCode} for the model file`);
  }
  return response.body;
}

/** Downloads `job.url` to `job.target`; throws DownloadError (nothing left behind) when it is not the promised file. */
export async function download(job: DownloadRequest) {
  const body = await fetchBody(job);
  const partial = join(job.target, '..', `.${randomBytes(6).toString('hex')}.part`);
  const hash = createHash('sha256');
  let received = 0;
  const file = await open(partial, 'w');
  try {
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        received += chunk.byteLength;
        if (received > job.size)
          throw new DownloadError(`the model file is larger than the ${job.size} bytes announced`);
        hash.update(chunk);
        await file.write(chunk);
        job.onBytes(received);
      }
      await file.sync();
    } finally {
      await file.close();
    }
    if (received !== job.size)
      throw new DownloadError(`the download ended after ${received} of ${job.size} bytes`);
    const digest = hash.digest('hex');
    if (digest !== job.sha256)
      throw new DownloadError(
        `sha256 mismatch: the downloaded file is ${digest.slice(0, 12)}…, the manifest says ${job.sha256.slice(0, 12)}…`,
      );
    await rename(partial, job.target);
    await syncDir(join(job.target, '..'));
  } catch (error) {
    body.destroy();
    await rm(partial, { force: true });
    if (error instanceof DownloadError) throw error;
    throw new DownloadError(
      job.signal?.aborted ? 'cancelled' : `the download failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
