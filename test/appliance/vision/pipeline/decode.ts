import { spawn } from 'node:child_process';
import { resolveFfmpegPath } from '../../../../appliance/vision/capture/ffmpeg.ts';

/**
 * The frames of a video as packed RGB, decoded by the real ffmpeg as fast as it goes, in batches
 * of `batch` (a long clip is never held whole: 120 s at 640x360 is 830 MB).
 */
export async function* decodeFrames(file: string, width: number, height: number, batch = 8) {
  const child = spawn(
    resolveFfmpegPath(process.env),
    ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, 'pipe:1'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const size = width * height * 3;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let frame = Buffer.allocUnsafe(size);
  let filled = 0;
  let pending: Buffer[] = [];
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(size - filled, chunk.length - at);
      chunk.copy(frame, filled, at, at + take);
      filled += take;
      at += take;
      if (filled === size) {
        pending.push(frame);
        frame = Buffer.allocUnsafe(size);
        filled = 0;
        if (pending.length === batch) {
          yield pending;
          pending = [];
        }
      }
    }
  }
  if (pending.length > 0) yield pending;
  const code = await exited;
  if (code !== 0) throw new Error(`ffmpeg failed (${code}): ${stderr}`);
}
