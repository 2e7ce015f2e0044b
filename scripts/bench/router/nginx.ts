/**
 * nginx as the anchor a user would pick instead of the router: Debian's binary, run with a config
 * of our own in a temporary dir (its error log, pid and temp paths there), on a free loopback port,
 * in front of the same gateway and with the router's rules as nginx words them: `/health` answered
 * uncounted, 100 requests a minute per `CF-Connecting-IP` (limit_req: a token bucket, where the
 * router keeps an exact sliding window), the tenant from the Host (the same label rule, 400
 * `Invalid tenant` otherwise), `X-Tenant-ID`, `X-Forwarded-Host`, `-For` and `-Proto` as the router
 * sets them, the four security headers on every answer (replacing the gateway's), bodies streamed
 * both ways, and a keep-alive pool to the gateway. One worker process: the router is one Node
 * process, whose JavaScript runs on one thread.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const NGINX = process.env.NGINX_BIN || '/usr/sbin/nginx';
export const NGINX_MISSING = `nginx not installed at ${NGINX}: install it (Debian/Ubuntu: apt-get install -y nginx) or set NGINX_BIN; the comparison with it was not run`;
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
export const WORKER_PROCESSES = 1;

export interface Nginx {
  port: number;
  version: string;
  /** The worker processes' ids, whose CPU time is nginx's cost per request. */
  workerPids: number[];
  config: string;
  stop(): Promise<void>;
}

/** `nginx/1.22.1`, or undefined when not installed. */
export function nginxVersion() {
  if (!existsSync(NGINX)) return undefined;
  const printed = spawnSync(NGINX, ['-v'], { encoding: 'utf8' }).stderr ?? '';
  return /nginx version: (\S+)/.exec(printed)?.[1] ?? 'unknown';
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The router's tenant rule (cloud/edge/tenant.ts) as a regex on the Host header: the first label,
 * lower-case letters, digits and hyphens, of a name ending in `.<domain>` (any case), any port.
 */
const tenantMap = (serviceDomain: string) => `map $http_host $tenant {
    default "";
    "~^(?<label>[a-z0-9-]{1,63})\\.(?:[^:]*\\.)?(?i:${escapeRegex(serviceDomain)})(?::[0-9]+)?$" $label;
  }`;

const SECURITY_HEADERS = [
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['X-XSS-Protection', '1; mode=block'],
  ['Referrer-Policy', 'strict-origin-when-cross-origin'],
] as const;

/** An add_header in a location replaces every one of its server's: both levels list all four. */
const securityHeaders = (indent: string, proxied: boolean) =>
  SECURITY_HEADERS.flatMap(([name, value]) => [
    ...(proxied ? [`${indent}proxy_hide_header ${name};`] : []),
    `${indent}add_header ${name} "${value}" always;`,
  ]).join('\n');

export interface NginxRules {
  port: number;
  gateway: URL;
  serviceDomain: string;
  dir: string;
}

/**
 * keepalive_requests is raised on both sides from nginx's 1,000: Node keeps a connection for any
 * number of requests, and a reconnect every 1,000 would be a cost the router does not pay.
 */
export function nginxConfig({ port, gateway, serviceDomain, dir }: NginxRules) {
  const user = process.getuid?.() === 0 ? `user ${userInfo().username};\n` : '';
  return `${user}worker_processes ${WORKER_PROCESSES};
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  keepalive_requests 1000000;
  default_type text/plain;
  ${tenantMap(serviceDomain)}
  map $http_x_forwarded_proto $forwarded_proto { default http; https https; }
  map $http_cf_connecting_ip $client { "" unknown; default $http_cf_connecting_ip; }
  limit_req_zone $client zone=clients:16m rate=100r/m;
  limit_req_status 429;
  upstream gateway {
    server ${gateway.host};
    keepalive 64;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${port};
${securityHeaders('    ', false)}
    location = /health { return 200 "OK"; }
    location / {
      limit_req zone=clients burst=100 nodelay;
      if ($tenant = "") { return 400 "Invalid tenant"; }
      return 404 "Not Found";
    }
    location /api/v1/ {
      limit_req zone=clients burst=100 nodelay;
      if ($tenant = "") { return 400 "Invalid tenant"; }
      proxy_pass http://gateway;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Tenant-ID $tenant;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $forwarded_proto;
      proxy_buffering off;
      proxy_request_buffering off;
${securityHeaders('      ', true)}
    }
  }
}
`;
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

/** Processes whose parent is `pid` (nginx's workers are the master's children). */
function childrenOf(pid: number) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function exited(child: ChildProcess, timeoutMs: number) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Listening, and its worker forked (the master listens first, so a connection alone does not say so). */
async function waitListening(child: ChildProcess, port: number, stderr: () => string) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await accepts(port)) || childrenOf(child.pid ?? 0).length < WORKER_PROCESSES) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`nginx did not listen on ${port}: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts nginx in front of `gateway`, in the foreground (`daemon off`), as a child of this process. */
export async function startNginx(gateway: URL, serviceDomain: string): Promise<Nginx> {
  const version = nginxVersion();
  if (version === undefined) throw new Error(NGINX_MISSING);
  const dir = await mkdtemp(join(tmpdir(), 'bench-nginx-'));
  const port = await freePort();
  const config = nginxConfig({ port, gateway, serviceDomain, dir });
  const file = join(dir, 'nginx.conf');
  await writeFile(file, config);
  const child = spawn(NGINX, ['-p', dir, '-c', file, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4096);
  });
  const kill = () => child.kill('SIGKILL');
  process.on('exit', kill);
  const stop = async () => {
    process.off('exit', kill);
    // SIGQUIT: nginx's graceful stop (SIGTERM is its fast one).
    child.kill('SIGQUIT');
    if (!(await exited(child, STOP_TIMEOUT_MS))) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitListening(child, port, () => `${stderr}${readLog(dir)}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, version, workerPids: childrenOf(child.pid ?? 0), config, stop };
}

function readLog(dir: string) {
  try {
    return readFileSync(join(dir, 'error.log'), 'utf8');
  } catch {
    return '';
  }
}
