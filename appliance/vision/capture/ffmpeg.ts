/**
 * The one place that knows ffmpeg: which binary, the command line that turns a camera's
 * source into raw frames on stdout, and the FIFO they are read from. fluent-ffmpeg is no longer maintained, so it only builds
 * the arguments here; the child is spawned with Node's own `spawn`, which keeps stdio, signals and
 * exit under our control and skips fluent-ffmpeg's capability probing (several ffmpeg runs).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, unlinkSync } from 'node:fs';
import { type OnReadOpts, Socket, type SocketConstructorOpts } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import installer from '@ffmpeg-installer/ffmpeg';
import ffmpeg from 'fluent-ffmpeg';
import type { PixelFormat } from '../pixels.ts';

export type SourceKind = 'rtsp' | 'http' | 'file';

export interface FfmpegSourceOptions {
  /** rtsp://, rtsps://, http://, https://, file:// or a plain path. */
  url: string;
  width: number;
  height: number;
  fps: number;
  /** Files only: play again from the start at the end (demo and test sources). */
  loop?: boolean;
  /** Network sources: a read that waits longer than this fails, and ffmpeg exits. */
  ioTimeoutMs?: number;
  /** Decoder threads; one keeps the decoder's own frame delay away and eight cameras off each other's cores. */
  threads?: number;
}

const DEFAULT_IO_TIMEOUT_MS = 5000;

/**
 * What the decoders produce, so a source at the inference size is not converted at all: RGB cost
 * ffmpeg a conversion of every frame and doubled the bytes through the FIFO, for stages that read
 * a few pixels of most frames (../pixels.ts converts those).
 */
export const CAPTURE_FORMAT = 'yuv420p' satisfies PixelFormat;

/** `FFMPEG_PATH` when the environment names one, else the static build shipped in node_modules. */
export function resolveFfmpegPath(env: { FFMPEG_PATH?: string | undefined } = {}): string {
  return env.FFMPEG_PATH?.trim() || installer.path;
}

export function sourceKind(url: string): SourceKind {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'rtsp' || scheme === 'rtsps') return 'rtsp';
  if (scheme === 'http' || scheme === 'https') return 'http';
  return 'file';
}

function inputOptions(options: FfmpegSourceOptions, kind: SourceKind): string[] {
  const micros = String((options.ioTimeoutMs ?? DEFAULT_IO_TIMEOUT_MS) * 1000);
  const threads = ['-threads', String(options.threads ?? 1)];
  // A short probe: a live source would otherwise be analysed for five seconds before the first frame.
  const probe = ['-probesize', '500000', '-analyzeduration', '1000000'];
  if (kind === 'rtsp') {
    // -stimeout is the RTSP socket timeout in this ffmpeg (4.1); its -timeout means "listen".
    return [
      ...threads,
      ...['-rtsp_transport', 'tcp', '-stimeout', micros],
      ...['-fflags', 'nobuffer', '-flags', 'low_delay'],
      ...probe,
    ];
  }
  // nobuffer stalls a finite HTTP body at probing, so HTTP keeps only the decoder's low delay.
  if (kind === 'http') return [...threads, '-rw_timeout', micros, '-flags', 'low_delay', ...probe];
  // Files may hold B-frames, which low_delay would reorder wrongly; -re plays them in real time.
  return [...threads, '-re', ...(options.loop ? ['-stream_loop', '-1'] : [])];
}

/** The full argument list (without the binary) for one camera's capture. */
export function captureArgs(options: FfmpegSourceOptions): string[] {
  const kind = sourceKind(options.url);
  const input = kind === 'file' ? options.url.replace(/^file:\/\//i, '') : options.url;
  const command = ffmpeg()
    .input(input)
    .inputOptions(inputOptions(options, kind))
    .noAudio()
    // fps first, so frames that are thrown away are never scaled.
    .videoFilters([`fps=${options.fps}`, `scale=${options.width}:${options.height}:flags=bilinear`])
    .outputOptions(['-pix_fmt', CAPTURE_FORMAT, '-f', 'rawvideo', '-sn', '-dn'])
    .output('pipe:1');
  // fluent-ffmpeg adds -y for anything it takes for a file, pipe:1 included; stdout needs none.
  const args = command._getArguments().filter((arg) => arg !== '-y');
  return ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', ...args];
}

/** Where a child's raw frames go: straight into the frame being filled, never into a new buffer. */
export interface FrameSink {
  /** The free part of the frame being filled. */
  space(): Uint8Array;
  /** `bytes` were written at the start of the last space given. */
  wrote(bytes: number): void;
}

export interface SpawnedCapture {
  child: ChildProcess;
  /** ffmpeg's messages (errors only, at its log level). */
  stderr: Readable;
  /** The read end of the child's stdout: ends when ffmpeg has exited and its last frame is read. */
  frames: Socket;
  args: string[];
}

let fifos = 0;

/**
 * ffmpeg's stdout is a FIFO the appliance reads with a fixed buffer (the frame being filled)
 * rather than a pipe read into a new 64 KiB buffer per chunk: at 720p that is 1.4 MB of garbage a
 * frame, 165 MB a second for eight cameras, and the full collections it caused stalled the event
 * loop. The FIFO is unlinked at once; only the two descriptors hold it.
 */
export function spawnCapture(
  options: FfmpegSourceOptions & { ffmpegPath: string; sink: FrameSink },
): SpawnedCapture {
  const args = captureArgs(options);
  const { writeEnd, readEnd } = openFifo();
  let child: ChildProcess;
  try {
    child = spawn(options.ffmpegPath, args, { stdio: ['ignore', writeEnd, 'pipe'] });
  } catch (error) {
    closeSync(readEnd);
    throw error;
  } finally {
    // The child holds its own copy: once it exits the reader sees the end of the stream.
    closeSync(writeEnd);
  }
  // onread is a constructor option since Node 12 that the type definitions leave out.
  const socketOptions: SocketConstructorOpts & { onread: OnReadOpts } = {
    fd: readEnd,
    readable: true,
    writable: false,
    onread: {
      buffer: () => options.sink.space(),
      // true: keep reading (false would pause the socket).
      callback: (bytes) => {
        options.sink.wrote(bytes);
        return true;
      },
    },
  };
  const frames = new Socket(socketOptions);
  if (!child.stderr) throw new Error('ffmpeg was started without its stderr');
  return { child, stderr: child.stderr, frames, args };
}

/** A FIFO's two ends, the FIFO itself unlinked at once (only the descriptors hold it). */
function openFifo() {
  const path = join(tmpdir(), `edge-capture-${process.pid}-${++fifos}.fifo`);
  execFileSync('mkfifo', ['-m', '600', path]);
  try {
    // Read-write so the open does not wait for a reader; the reader then has a writer at once.
    const writeEnd = openSync(path, constants.O_RDWR);
    try {
      return { writeEnd, readEnd: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK) };
    } catch (error) {
      closeSync(writeEnd);
      throw error;
    }
  } finally {
    unlinkSync(path);
  }
}
