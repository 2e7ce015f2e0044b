/**
 * What the console's tests make happen in the restaurant group through its APIs, as a store, an
 * integrator or a monitoring system would: an order at the store, an authenticator factor, an
 * alert, and the detail pages (an order, an incident) every screen pass needs.
 */
import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import { client, ok, signIn as tokenFor } from '../../support/json-client.ts';
import { waitFor } from '../../support/processes.ts';
import { type ConsoleRig, DEMO, storeMenu } from './rig.ts';

/** An order of two Classic Burgers at the store, through the store's own API. */
export async function orderAtStore(rig: ConsoleRig) {
  const burger = (await storeMenu(rig.appliance)).find((item) => item.name === 'Classic Burger')!;
  const { status, body } = await rig.appliance('POST', '/v1/commerce/orders', {
    order_type: 'dine_in',
    items: [{ menu_item_id: burger.id, quantity: 2 }],
  });
  expect(status, JSON.stringify(body)).toBeLessThan(300);
  return body.data as { id: string; number: string };
}

/** Once the cloud has the store's order (its push follows the sale within moments). */
export const cloudHasOrder = (rig: ConsoleRig, id: string) =>
  waitFor(`order ${id} in the cloud`, async () =>
    (await rig.cloud('GET', `/v1/commerce/orders/${id}`)).status === 200 ? true : undefined,
  );

/** 6-digit codes of a TOTP secret, at a moment. */
export const totp = (secret: string, at: number) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({
    timestamp: at,
  });

/** Per rig: vitest runs a worker's files in one module graph, and each file has its own rig. */
const mfaSecrets = new WeakMap<ConsoleRig, string>();

/** The MFA user's authenticator secret, its factor enrolled and activated through the API once. */
export async function mfaFactor(rig: ConsoleRig) {
  const known = mfaSecrets.get(rig);
  if (known) return known;
  const as = client(rig.cloudUrl, await tokenFor(rig.cloudUrl, DEMO.mfaUser.email, DEMO.mfaUser.password));
  const factor = await ok<{ id: string; secret: string }>(
    as('POST', '/v1/auth/mfa/factors', { label: 'Authenticator' }),
    201,
  );
  const code = totp(factor.secret, Date.now());
  await ok(as('POST', `/v1/auth/mfa/factors/${factor.id}/activate`, { code }));
  mfaSecrets.set(rig, factor.secret);
  return factor.secret;
}

/** A P3 alert about the store from a monitoring system; answers its id. */
export async function ingestAlert(rig: ConsoleRig, title: string, service: string) {
  const alert = await ok<{ id: string }>(
    rig.cloud('POST', '/api/v1/alerts/ingest', {
      source: 'console-test',
      severity: 'P3',
      title,
      service,
      description: `${title}: seen by the store's monitoring for 15 minutes.`,
      labels: { location_id: rig.locationId },
    }),
    201,
  );
  return alert.id;
}

/** An order and an incident for the detail pages, made when earlier tests have not made them. */
export async function detailPages(rig: ConsoleRig) {
  const orders = await ok<{ items: Array<{ id: string }> }>(rig.cloud('GET', '/v1/commerce/orders?limit=1'));
  let orderId = orders.items[0]?.id;
  if (!orderId) {
    orderId = (await orderAtStore(rig)).id;
    await cloudHasOrder(rig, orderId);
  }
  const incident = async () =>
    (await ok<Array<{ id: string }>>(rig.cloud('GET', '/v1/incidents?limit=1')))[0]?.id;
  // Every firing alert opens an incident (or folds into its device's open one).
  if (!(await incident())) await ingestAlert(rig, 'Drive-thru lane camera offline', 'vision');
  const incidentId = await waitFor('an incident', incident);
  return { orderId, incidentId };
}

/** Every screen a head-office user has, by path, with a detail page of each kind. */
export async function everyScreen(rig: ConsoleRig) {
  const { orderId, incidentId } = await detailPages(rig);
  return [
    '/stores',
    `/stores/${rig.locationId}`,
    '/menu',
    '/orders',
    `/orders/${orderId}`,
    '/reports',
    '/alerts',
    `/incidents/${incidentId}`,
    '/webhooks',
    '/devices',
    '/users',
    '/billing',
  ];
}

/**
 * Requests that fail by design, which Chromium logs as errors all the same: an incident's chat
 * channel answers 404 to whoever is not one of its members, and the incident page says so.
 */
const EXPECTED_FAILURES = [/status of 404 .*\/api\/v1\/chat\/channels\/[\w-]+(\/messages\?[^)]*)?\)$/];

export const unexpected = (problems: string[]) =>
  problems.filter((problem) => !EXPECTED_FAILURES.some((expected) => expected.test(problem)));
