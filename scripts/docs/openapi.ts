/**
 * The OpenAPI documents both processes publish at `/openapi.json`, built from a real app on a
 * throw-away SQLite file (nothing listens), for the API reference.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApplianceApp, createApplianceServices } from '../../appliance/app.ts';
import { loadApplianceConfig } from '../../appliance/config.ts';
import { openApplianceDb } from '../../appliance/db/index.ts';
import { buildApp } from '../../cloud/app.ts';
import { loadCloudConfig } from '../../cloud/config.ts';
import { openStore } from '../../cloud/db/index.ts';
import { createCloudServices } from '../../cloud/services.ts';
import { systemClock } from '../../shared/clock.ts';
import { createSecretHasher } from '../../shared/identity/secrets.ts';
import { newId } from '../../shared/ids.ts';

export type OpenApiDocument = Record<string, unknown>;

async function inTemporaryDir<T>(work: (dir: string) => Promise<T>) {
  const dir = mkdtempSync(join(tmpdir(), 'docs-openapi-'));
  try {
    return await work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function cloudDocument(): Promise<OpenApiDocument> {
  return inTemporaryDir(async (dir) => {
    const config = { ...loadCloudConfig({ DATA_DIR: dir }), logLevel: 'silent' as const };
    const store = await openStore({ dataDir: dir, databaseUrl: undefined, schema: undefined });
    const deps = { store, clock: systemClock, newId };
    const services = createCloudServices(config, deps);
    const app = await buildApp(config, { ...deps, services });
    try {
      return (await app.inject({ url: '/openapi.json' })).json();
    } finally {
      await app.close();
      await services.webhooks.close();
      for (const module of [services.notify, services.alerting, services.aiops, services.chat])
        await module.close();
      services.remediation.close();
      await services.relay.close();
      await store.close();
    }
  });
}

const PLACEHOLDER = '00000000-0000-7000-8000-000000000000';

export function applianceDocument(): Promise<OpenApiDocument> {
  return inTemporaryDir(async (dir) => {
    const env = { TENANT_ID: PLACEHOLDER, LOCATION_ID: PLACEHOLDER, APPLIANCE_DATA_DIR: dir };
    const config = { ...loadApplianceConfig(env), logLevel: 'silent' as const };
    const db = openApplianceDb(dir);
    const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });
    const deps = { db, clock: systemClock, newId, hasher };
    const app = await buildApplianceApp(config, deps, createApplianceServices(config, deps));
    try {
      return (await app.inject({ url: '/openapi.json' })).json();
    } finally {
      await app.close();
      db.close();
    }
  });
}
