/**
 * The one place that knows ffmpeg: which binary, and the command line that turns a camera's
 * source into raw RGB frames on stdout. fluent-ffmpeg is no longer maintained, so it only builds
 * the arguments here; the child is spawned with Node's own `spawn`, which keeps stdio, signals and
 * exit under our control and skips fluent-ffmpeg's capability probing (several ffmpeg runs).
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import installer from '@ffmpeg-installer/ffmpeg';
import ffmpeg from 'fluent-ffmpeg';

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
    .outputOptions(['-pix_fmt', 'rgb24', '-f', 'rawvideo', '-sn', '-dn'])
    .output('pipe:1');
  // fluent-ffmpeg adds -y for anything it takes for a file, pipe:1 included; stdout needs none.
  const args = command._getArguments().filter((arg) => arg !== '-y');
  return ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', ...args];
}

export type FfmpegChild = ChildProcessByStdio<null, Readable, Readable>;

export interface SpawnedCapture {
  child: FfmpegChild;
  /** Raw rgb24 frames, `width * height * 3` bytes each, back to back. */
  stdout: Readable;
  args: string[];
}

export function spawnCapture(options: FfmpegSourceOptions & { ffmpegPath: string }): SpawnedCapture {
  const args = captureArgs(options);
  const child = spawn(options.ffmpegPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return { child, stdout: child.stdout, args };
}
