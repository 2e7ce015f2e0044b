/**
 * Mosquitto as the benchmark's reference: the machine's own binary, started with a configuration
 * of our own on a free loopback port (anonymous, no persistence, every other setting at its
 * default, so a slow subscriber meets its default max_queued_messages 1000).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

export const MOSQUITTO = process.env.MOSQUITTO_BIN || '/usr/sbin/mosquitto';
export const MOSQUITTO_MISSING = `Mosquitto is not installed at ${MOSQUITTO}: install it (Debian/Ubuntu: apt-get install -y mosquitto) or set MOSQUITTO_BIN; the comparison with it was not run`;
const START_TIMEOUT_MS = 10_000;
const LINES_KEPT = 100_000;

export interface Mosquitto {
  port: number;
  pid: number;
  version: string;
  config: string;
  /** Its log (stderr, the default destination) so far, a line each. */
  lines: string[];
  stop(): Promise<void>;
}

/** The version `mosquitto -h` prints (it exits 3 after printing it), or undefined when not installed. */
export function mosquittoVersion() {
  if (!existsSync(MOSQUITTO)) return undefined;
  const help = spawnSync(MOSQUITTO, ['-h'], { encoding: 'utf8' }).stdout ?? '';
  return /mosquitto version (\S+)/.exec(help)?.[1] ?? 'unknown';
}

function freePort() {
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export async function startMosquitto(dir: string): Promise<Mosquitto> {
  const version = mosquittoVersion();
  if (version === undefined) throw new Error(MOSQUITTO_MISSING);
  const port = await freePort();
  const config = [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', ''].join('\n');
  const file = join(dir, 'mosquitto.conf');
  await writeFile(file, config);
  const child = spawn(MOSQUITTO, ['-c', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  child.stderr.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    if (lines.length < LINES_KEPT) lines.push(...parts);
  });
  const kill = () => child.kill('SIGKILL');
  process.on('exit', kill);
  const stop = async () => {
    process.off('exit', kill);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`mosquitto did not listen on ${port}: ${lines.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, pid: child.pid ?? 0, version, config, lines, stop };
}
