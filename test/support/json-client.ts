/**
 * What the end-to-end tests speak to real cloud and appliance processes with: a JSON client for a
 * base URL and bearer token, the check that an answer is the one expected, and the first admin of
 * a new tenant, made as the operator CLI makes it before the cloud starts.
 */
import { expect } from 'vitest';
import { loadCloudConfig } from '../../cloud/config.ts';
import { openStore } from '../../cloud/db/index.ts';
import { createCloudServices } from '../../cloud/services.ts';
import { systemClock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';

export type Json = Record<string, unknown> & { data?: unknown; error?: { code: string; message: string } };

/** A JSON client for one base URL and bearer token. */
export function client(base: string, token?: string) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
}
export type Client = ReturnType<typeof client>;

/** The answer's data, once its status is the one expected (the body is the failure's message). */
export async function ok<T = Record<string, unknown>>(
  reply: Promise<{ status: number; body: Json }>,
  status = 200,
) {
  const { status: got, body } = await reply;
  expect(got, JSON.stringify(body)).toBe(status);
  return body.data as T;
}

/**
 * A tenant and its first admin in the store a cloud with `env` will open; everything else goes
 * through the API. Answers the tenant's id.
 */
export async function createTenantWithAdmin(
  env: Record<string, string>,
  tenant: { slug: string; name: string; tier: 'free' | 'professional' | 'enterprise' },
  admin: { email: string; password: string },
) {
  const config = { ...loadCloudConfig(env), hashing: { memoryCost: 1024, timeCost: 1 } };
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    schema: config.databaseSchema,
  });
  try {
    const services = createCloudServices(config, { store, clock: systemClock, newId });
    const created = await services.tenancy.createTenant(tenant);
    await services.tenancy.addUser(created.id, { ...admin, roles: ['tenant_admin'] });
    await services.webhooks.close();
    return created.id;
  } finally {
    await store.close();
  }
}

/** An access token for a user of the cloud at `base`, signed in by password. */
export async function signIn(base: string, email: string, password: string) {
  const response = await fetch(`${base}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return ((await response.json()) as { status: { access_token: string } }).status.access_token;
}
