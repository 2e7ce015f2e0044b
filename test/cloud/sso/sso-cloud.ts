import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { signedInUser, type TestCloud, twoTenantCloud } from '../../support/cloud.ts';

/** Where the client app receives the IdP's redirect in these tests (never fetched). */
export const CLIENT_REDIRECT = 'http://127.0.0.1:5999/sso/done';

export type Caller = (
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
) => Promise<LightMyRequestResponse>;

export const caller =
  (cloud: TestCloud, token?: string): Caller =>
  (method, url, payload) =>
    cloud.app.inject({
      method,
      url,
      ...(payload === undefined ? {} : { payload: payload as object }),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

/** Two tenants, each with an admin, and an anonymous caller. */
export async function ssoCloud(backend: 'sqlite' | 'pg', config: Parameters<typeof twoTenantCloud>[1] = {}) {
  const { cloud, a, b } = await twoTenantCloud(backend, config);
  const adminA = await signedInUser(cloud, a.tenant.id, 'admin@alpha.test', ['tenant_admin']);
  const adminB = await signedInUser(cloud, b.tenant.id, 'admin@bravo.test', ['tenant_admin']);
  return {
    cloud,
    a,
    b,
    adminA: caller(cloud, adminA.token),
    adminB: caller(cloud, adminB.token),
    anonymous: caller(cloud),
  };
}

export function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect({ status: response.statusCode, code: response.json().error?.code }).toEqual({ status, code });
}
