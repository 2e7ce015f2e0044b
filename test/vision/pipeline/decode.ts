import { spawn } from 'node:child_process';
import { resolveFfmpegPath } from '../../../appliance/vision/capture/ffmpeg.ts';

/** Every frame of a video as packed RGB, decoded by the real ffmpeg as fast as it goes. */
export async function decodeFrames(file: string, width: number, height: number): Promise<Buffer[]> {
  const child = spawn(
    resolveFfmpegPath(process.env),
    ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, 'pipe:1'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const size = width * height * 3;
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
  const code = await new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`ffmpeg failed (${code}): ${stderr}`);
  const all = Buffer.concat(chunks);
  const frames: Buffer[] = [];
  for (let at = 0; at + size <= all.length; at += size) frames.push(all.subarray(at, at + size));
  return frames;
}
