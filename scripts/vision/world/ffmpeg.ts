/** The ffmpeg binary (env `FFMPEG_PATH` or @ffmpeg-installer's static build) and a raw-RGB encoder. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';

export function ffmpegPath(): string {
  return process.env.FFMPEG_PATH || ffmpegInstaller.path;
}

export interface Encoder {
  write(frame: Buffer): Promise<void>;
  close(): Promise<void>;
}

/** H.264 in MP4, yuv420p, a keyframe every second so a clip seeks cheaply. */
export function createEncoder(out: string, width: number, height: number, fps: number, crf = 26): Encoder {
  if (width % 2 || height % 2)
    throw new Error(`width and height must be even for yuv420p, got ${width}x${height}`);
  const args = [
    ['-y', '-loglevel', 'error', '-f', 'rawvideo', '-pix_fmt', 'rgb24'],
    ['-s', `${width}x${height}`, '-r', String(fps), '-i', 'pipe:0'],
    ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', String(crf), '-g', String(fps)],
    ['-pix_fmt', 'yuv420p', '-movflags', '+faststart', out],
  ].flat();
  const child: ChildProcess = spawn(ffmpegPath(), args, { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = once(child, 'close') as Promise<[number | null]>;
  const stdin = child.stdin!;
  return {
    async write(frame) {
      if (!stdin.write(frame)) await Promise.race([once(stdin, 'drain'), exited]);
    },
    async close() {
      stdin.end();
      const [code] = await exited;
      if (code !== 0) throw new Error(`ffmpeg exited ${code}: ${stderr.trim()}`);
    },
  };
}
