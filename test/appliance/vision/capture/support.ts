import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { resolveFfmpegPath } from '../../../../appliance/vision/capture/ffmpeg.ts';

export const FFMPEG = resolveFfmpegPath();

/** An H.264 clip of ffmpeg's moving test pattern, made in a few tens of milliseconds. */
export async function makeClip(
  path: string,
  { width = 320, height = 180, rate = 10, seconds = 3 } = {},
): Promise<string> {
  await promisify(execFile)(FFMPEG, [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}:rate=${rate}`, '-t', String(seconds)],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', path],
  ]);
  return path;
}

/** A pino logger whose lines the test can read. */
export function recordingLog() {
  const lines: Array<{ level: number; msg: string } & Record<string, unknown>> = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

/**
 * A live camera stand-in: every GET gets its own ffmpeg encoding `testsrc2` in real time as
 * MPEG-TS. `close()` ends the streams and the listener, as a camera losing power would.
 */
export async function startLiveServer(port = 0) {
  const encoders = new Set<ChildProcess>();
  const server: Server = createServer((request, response) => {
    const encoder = spawn(FFMPEG, [
      ...['-hide_banner', '-loglevel', 'error', '-re'],
      ...['-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=10'],
      ...[
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-tune',
        'zerolatency',
        '-g',
        '10',
        '-f',
        'mpegts',
        'pipe:1',
      ],
    ]);
    encoders.add(encoder);
    encoder.on('close', () => encoders.delete(encoder));
    response.writeHead(200, { 'content-type': 'video/mp2t' });
    encoder.stdout.pipe(response);
    request.on('close', () => encoder.kill('SIGKILL'));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    /** Freezes every encoder: the connection stays open and no byte flows (a hung camera). */
    freeze() {
      for (const encoder of encoders) encoder.kill('SIGSTOP');
    },
    async close() {
      for (const encoder of encoders) encoder.kill('SIGKILL');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
