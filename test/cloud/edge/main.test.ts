import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { entryArgs } from '../../support/entries.ts';
import { call } from './edge-support.ts';

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, entryArgs('cloud/edge/main.ts'), {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

describe('npm run edge (cloud/edge/main.ts)', () => {
  it('stops at start-up with exit code 2 and a message naming a bad variable', async () => {
    const edge = run({ GATEWAY_URL: 'gateway:8080' });
    expect(await edge.exited).toBe(2);
    expect(edge.stderr()).toContain('edge: GATEWAY_URL must be http(s)://host:port, got "gateway:8080"');
  });

  it('listens, logs its port, answers, and stops cleanly on SIGTERM', async () => {
    const edge = run({ EDGE_PORT: '0', GATEWAY_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'info' });
    const deadline = Date.now() + 20_000;
    let port: number | undefined;
    while (port === undefined && Date.now() < deadline) {
      const line = edge
        .stdout()
        .split('\n')
        .find((l) => l.includes('edge listening'));
      if (line) port = JSON.parse(line).port;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(port, edge.stderr()).toBeDefined();
    const health = await call(port!, { path: '/health' });
    expect(health.body).toBe('OK');
    edge.child.kill('SIGTERM');
    expect(await edge.exited).toBe(0);
    expect(edge.stdout()).toContain('shutting down');
  });
});
