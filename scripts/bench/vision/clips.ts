/**
 * The cameras' sources: one held-out synthetic lane clip rendered by the world generator at the
 * cameras' size and rate (H.264, as a camera sends it), and copies of it started further in, one
 * per camera, so eight cameras looping it never show the same moment; and the same files with
 * sensor noise, as a cheap camera in low light sends them (the motion gate then skips little).
 * Made once and kept under data/bench/vision/ (ignored by git); a later run reuses them.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ffmpegPath } from '../../vision/world/ffmpeg.ts';
import { writeLaneClip } from '../../vision/world/lane-clip.ts';
import { DEFAULT_LANE_CONFIG } from '../../vision/world/simulator.ts';
import type { VisionPlan } from './plan.ts';

const CACHE_DIR = fileURLToPath(new URL('../../../data/bench/vision/', import.meta.url));
/** The world generator's encoding (createEncoder), kept for the shifted copies. */
const CRF = 26;

/**
 * Grainy luma and some colour noise, changing every frame, encoded at a camera's 2 Mbit/s: the
 * encoder turns the grain into blotches that move the motion gate's cells in most frames.
 */
export const NOISE_FILTER = 'noise=c0s=40:c0f=t,noise=alls=15:allf=t';
const NOISY_BITRATE = ['-b:v', '2M', '-maxrate', '2M', '-bufsize', '4M'];

export type ClipName = 'lane' | 'noisy lane';

export interface Clips {
  /** One file per camera: the clip itself first, then copies starting `offsets_s[i]` seconds in. */
  files: string[];
  /** The same with NOISE_FILTER. */
  noisy_files: string[];
  noise_filter: string;
  offsets_s: number[];
  seed: number;
  seconds: number;
  size: string;
  fps: number;
  cars: number;
  generated: boolean;
  generate_seconds: number | null;
}

function run(args: string[]) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(ffmpegPath(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2000);
    });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${stderr.trim()}`)),
    );
  });
}

/** The clip from `offset` to its end, then its start up to `offset`: re-encoded, so every frame is whole. */
function shifted(source: string, offset: number, fps: number, out: string) {
  return run([
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-ss', String(offset), '-i', source, '-t', String(offset), '-i', source],
    ...['-filter_complex', '[0:v][1:v]concat=n=2:v=1:a=0[v]', '-map', '[v]'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', String(CRF), '-g', String(fps)],
    ...['-pix_fmt', 'yuv420p', '-movflags', '+faststart', out],
  ]);
}

function noisy(source: string, fps: number, out: string) {
  return run([
    ...['-hide_banner', '-loglevel', 'error', '-y', '-i', source, '-vf', NOISE_FILTER],
    ...['-c:v', 'libx264', '-preset', 'veryfast', ...NOISY_BITRATE, '-g', String(fps)],
    ...['-pix_fmt', 'yuv420p', '-movflags', '+faststart', out],
  ]);
}

/**
 * The noisy clip from `offset` on, then its start: cut at key frames (one a second) and copied,
 * not encoded again, so the noise is the clip's own and the copy takes a moment.
 */
async function shiftedCopy(source: string, offset: number, seconds: number, work: string, out: string) {
  const list = join(work, `from-${offset}.txt`);
  const quoted = `'${source.replaceAll("'", "'\\''")}'`;
  await writeFile(
    list,
    `file ${quoted}\ninpoint ${offset}\noutpoint ${seconds}\nfile ${quoted}\noutpoint ${offset}\n`,
  );
  await run([
    ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list],
    ...['-c', 'copy', '-movflags', '+faststart', out],
  ]);
}

/** Each missing file made from its source in `work` and moved in once whole. */
async function makeMissing(
  work: string,
  pairs: Array<[string, string]>,
  make: (from: string, to: string) => Promise<void>,
) {
  for (const [i, [from, to]] of pairs.entries()) {
    if (existsSync(to)) continue;
    const out = join(work, `making-${i}.mp4`);
    await make(from, out);
    await rename(out, to);
  }
}

/** The clip and its copies for `cameras` cameras, made now unless kept from an earlier run. */
export async function ensureClips(plan: VisionPlan, cameras: number): Promise<Clips> {
  const { seed, seconds, width, height, fps } = plan.clip;
  const base = `lane-${seed}-${width}x${height}-${fps}fps-${seconds}s`;
  const offsets = Array.from({ length: cameras }, (_, i) => Math.round((i * seconds) / cameras));
  const files = offsets.map((offset) =>
    join(CACHE_DIR, offset === 0 ? `${base}.mp4` : `${base}-from-${offset}s.mp4`),
  );
  const noisyFiles = files.map((file) => file.replace(/\.mp4$/, '-noisy.mp4'));
  const truthFile = join(CACHE_DIR, `${base}.truth.json`);
  const describe = async (generated: boolean, generateSeconds: number | null): Promise<Clips> => {
    const truth = JSON.parse(await readFile(truthFile, 'utf8')) as { cars: unknown[] };
    return {
      files,
      noisy_files: noisyFiles,
      noise_filter: NOISE_FILTER,
      offsets_s: offsets,
      seed,
      seconds,
      size: `${width}x${height}`,
      fps,
      cars: truth.cars.length,
      generated,
      generate_seconds: generateSeconds,
    };
  };
  if ([...files, ...noisyFiles, truthFile].every((file) => existsSync(file))) return describe(false, null);

  const started = performance.now();
  await mkdir(CACHE_DIR, { recursive: true });
  // Written aside and moved in, so an interrupted run leaves no half clip to be taken for a whole one.
  const work = await mkdtemp(join(CACHE_DIR, '.making-'));
  try {
    if (!existsSync(files[0]!) || !existsSync(truthFile)) {
      const clip = await writeLaneClip({
        config: { ...DEFAULT_LANE_CONFIG, seed, seconds, fps },
        width,
        height,
        outDir: work,
        name: base,
        crf: CRF,
      });
      await rename(clip.truthFile, truthFile);
      await rename(clip.video, files[0]!);
    }
    const copies = offsets.map((offset, i): [string, string] => [String(offset), files[i]!]).slice(1);
    await makeMissing(work, copies, (offset, out) => shifted(files[0]!, Number(offset), fps, out));
    await makeMissing(work, [[files[0]!, noisyFiles[0]!]], (from, out) => noisy(from, fps, out));
    const noisyCopies = offsets
      .map((offset, i): [string, string] => [String(offset), noisyFiles[i]!])
      .slice(1);
    await makeMissing(work, noisyCopies, (offset, out) =>
      shiftedCopy(noisyFiles[0]!, Number(offset), seconds, work, out),
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  await writeFile(join(CACHE_DIR, 'README.txt'), 'Sources of `npm run bench -- vision`; safe to delete.\n');
  return describe(true, Math.round((performance.now() - started) / 100) / 10);
}
