import { createPrivateKey, type KeyObject, webcrypto } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { renewalSignature } from '../../../shared/devices/enrolment.ts';
import { EC_P256, x509 } from '../../../shared/devices/x509.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';

export const PASSWORD = 'correct-horse-battery';
const DAY_MS = 86_400_000;

type Method = 'GET' | 'POST';
export type Call = (method: Method, path: string, payload?: unknown) => Promise<LightMyRequestResponse>;

/** Calls the gateway as the holder of `token`, anonymously without one. */
export const caller =
  (cloud: TestCloud, token?: string): Call =>
  (method, path, payload) =>
    cloud.app.inject({
      method,
      url: path,
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
      headers: token ? bearer(token) : {},
    });

/** A member of a tenant who can sign in again after the test clock moved past their token. */
export async function member(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  await cloud.services.tenancy.addUser(tenantId, { email, password: PASSWORD, roles });
  const signIn = async () =>
    caller(cloud, (await loginTokens(cloud.app, { email, password: PASSWORD })).access_token);
  let call = await signIn();
  return {
    call: ((...args) => call(...args)) as Call,
    async refresh() {
      call = await signIn();
    },
  };
}

export type Member = Awaited<ReturnType<typeof member>>;

/** Two tenants, each with a store and an admin; A also has a manager and a staff member. */
export async function deviceCloud(backend: 'sqlite' | 'pg') {
  const cloud = await createTestCloud(backend, { config: { rateLimit: false } });
  const a = await seedTenant(cloud.services, 'alpha');
  const b = await seedTenant(cloud.services, 'bravo');
  const people = {
    adminA: await member(cloud, a.tenant.id, 'admin@alpha.test', ['tenant_admin']),
    managerA: await member(cloud, a.tenant.id, 'manager@alpha.test', ['manager']),
    staffA: await member(cloud, a.tenant.id, 'staff@alpha.test', ['staff']),
    adminB: await member(cloud, b.tenant.id, 'admin@bravo.test', ['tenant_admin']),
  };
  const anonymous = caller(cloud);
  /** Moves the clock and signs everyone in again (their access tokens live an hour). */
  async function advanceDays(days: number) {
    cloud.clock.advance(days * DAY_MS);
    for (const person of Object.values(people)) await person.refresh();
  }
  return { cloud, a, b, ...people, anonymous, advanceDays };
}

export type DeviceCloud = Awaited<ReturnType<typeof deviceCloud>>;

/** A key made "on the device" and a CSR for it; the subject is what a device might ask for. */
export async function deviceKey(subject = 'CN=I am the admin, O=Evil') {
  const keys = (await webcrypto.subtle.generateKey(EC_P256, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys,
    signingAlgorithm: EC_P256,
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const privateKey: KeyObject = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  const jwk = await webcrypto.subtle.exportKey('jwk', keys.privateKey);
  return { csr: csr.toString('pem'), privateKey, pkcs8, scalar: jwk.d! };
}

export type DeviceKey = Awaited<ReturnType<typeof deviceKey>>;

let serialSeq = 0;
export const deviceBody = (locationId: string, overrides: Record<string, unknown> = {}) => ({
  location_id: locationId,
  device_type: 'kds',
  name: 'Kitchen screen',
  serial_number: `SN-${++serialSeq}`,
  model: 'KDS-15',
  firmware_version: '1.0.0',
  ...overrides,
});

export function expectOk(response: LightMyRequestResponse, status = 200) {
  expect(response.statusCode, response.body).toBe(status);
  return response.json().data;
}

export function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Array) },
    meta: { request_id: expect.any(String) },
  });
  return body.error as { code: string; message: string; details: Array<{ field: string; message: string }> };
}

/** Registers a device through the API as `admin`; returns the record with its token. */
export async function registerDevice(
  admin: Member,
  locationId: string,
  overrides: Record<string, unknown> = {},
) {
  return expectOk(await admin.call('POST', '/v1/mdm/devices', deviceBody(locationId, overrides)), 201) as {
    id: string;
    enrollment_token: string;
    [field: string]: unknown;
  };
}

export interface Enrolled {
  device_id: string;
  serial: string;
  certificate: string;
  ca_certificate: string;
  expires_at: string;
  key: DeviceKey;
}

/** Registers and enrols a device with a fresh key. */
export async function enrolledDevice(context: DeviceCloud, overrides: Record<string, unknown> = {}) {
  const device = await registerDevice(context.adminA, context.a.location.id, overrides);
  const key = await deviceKey();
  const issued = expectOk(
    await context.anonymous('POST', '/v1/mdm/enroll', {
      enrollment_token: device.enrollment_token,
      csr: key.csr,
    }),
  );
  return { ...issued, key } as Enrolled;
}

/** A renewal request as a device makes it: a new key's CSR signed with the current key. */
export async function renewalOf(current: { certificate: string; key: DeviceKey }, next?: DeviceKey) {
  const key = next ?? (await deviceKey());
  return {
    key,
    body: {
      csr: key.csr,
      certificate: current.certificate,
      signature: renewalSignature(key.csr, current.key.privateKey),
    },
  };
}
