import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { APPLIANCE_NODE_FLAGS, buildAll } from '../../scripts/build.ts';
import { exited, type Started, startProcess } from '../support/processes.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const LOCATION = '01900000-0000-7000-8000-0000000000c3';

/** What a deployment runs: the files `npm run build` writes, by Node alone. */
describe('the compiled appliance and cloud', () => {
  const dirs: string[] = [];
  const running: Started[] = [];
  afterEach(async () => {
    for (const { child } of running.splice(0)) {
      child.kill('SIGKILL');
      await exited(child);
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'compiled-'));
    dirs.push(dir);
    return dir;
  };

  it('run from dist/ with the production flags, answer, and stop cleanly', async () => {
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> })
      .scripts;
    expect(scripts['appliance:prod']).toBe(`node ${APPLIANCE_NODE_FLAGS.join(' ')} dist/appliance.mjs`);
    expect(await buildAll()).toEqual([
      'dist/appliance.mjs',
      'dist/cloud.mjs',
      'dist/webhook-worker.mjs',
      'dist/edge.mjs',
      'dist/vision-detect-worker.mjs',
      'dist/launcher.mjs',
    ]);

    const cloud = await startProcess(
      'dist/cloud.mjs',
      { DATA_DIR: tempDir(), CLOUD_PORT: '0', LOG_LEVEL: 'info' },
      /cloud listening/,
      { compiled: true },
    );
    running.push(cloud);
    const appliance = await startProcess(
      'dist/appliance.mjs',
      {
        TENANT_ID: TENANT,
        LOCATION_ID: LOCATION,
        APPLIANCE_PORT: '0',
        APPLIANCE_HOST: '127.0.0.1',
        APPLIANCE_DATA_DIR: tempDir(),
        APPLIANCE_MQTT_PORT: '0',
        LOG_LEVEL: 'info',
      },
      /appliance listening/,
      { compiled: true, nodeArgs: APPLIANCE_NODE_FLAGS },
    );
    running.push(appliance);
    const edge = await startProcess(
      'dist/edge.mjs',
      {
        GATEWAY_URL: `http://127.0.0.1:${cloud.port}`,
        EDGE_PORT: '0',
        SERVICE_DOMAIN: 'localhost',
        LOG_LEVEL: 'info',
      },
      /edge listening/,
      { compiled: true },
    );
    running.push(edge);
    for (const port of [cloud.port, appliance.port, edge.port]) {
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
    }
    // Through the router to the gateway: a tenant host, and the gateway's own 401 back.
    const routed = await new Promise<IncomingMessage>((resolve, reject) =>
      get(
        {
          port: edge.port,
          host: '127.0.0.1',
          path: '/api/v1/chat/config',
          headers: { host: 'demo.localhost' },
        },
        resolve,
      ).on('error', reject),
    );
    routed.resume();
    expect(routed.statusCode).toBe(401);
    expect(routed.headers['x-frame-options']).toBe('DENY');
    const docs = (await (await fetch(`http://127.0.0.1:${appliance.port}/docs/json`)).json()) as {
      openapi: string;
    };
    expect(docs.openapi).toMatch(/^3\./);
    for (const { child } of running) {
      child.kill('SIGTERM');
      await exited(child);
      expect(child.exitCode).toBe(0);
    }
  }, 60_000);
});
