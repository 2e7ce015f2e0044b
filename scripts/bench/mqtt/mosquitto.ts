/**
 * Mosquitto as the benchmark's reference: the machine's own binary, started with a configuration
 * of our own on a free loopback port (anonymous, no persistence). With `limits`, its per-client
 * limits are raised so that it drops nothing the bench sends (the fair anchor); without, every
 * other setting stays at its default, where a client past 20 QoS 1 messages in flight and 1,000
 * queued loses the rest.
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

/** Settings of the no-drop configuration; none: Mosquitto's defaults. */
export interface MosquittoLimits {
  /** max_inflight_messages: QoS 1/2 messages sent to one client and not yet acknowledged. */
  inflight: number;
}

/** The configuration file's lines for a listener on `port`. */
export function mosquittoConfig(port: number | string, limits?: MosquittoLimits) {
  const lines = [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false'];
  if (limits)
    lines.push(
      `max_inflight_messages ${limits.inflight}`,
      // 0 is no maximum: it holds what the subscriber has not taken yet, as our broker does.
      'max_queued_messages 0',
      // Our listeners turn Nagle off too.
      'set_tcp_nodelay true',
    );
  return `${lines.join('\n')}\n`;
}

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

export async function startMosquitto(dir: string, limits?: MosquittoLimits): Promise<Mosquitto> {
  const version = mosquittoVersion();
  if (version === undefined) throw new Error(MOSQUITTO_MISSING);
  const port = await freePort();
  const config = mosquittoConfig(port, limits);
  const file = join(dir, `mosquitto-${port}.conf`);
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
