/**
 * The operator UI in Chromium against a real store: a cloud process, an appliance process with
 * the demo menu and cameras playing generated video, and real devices on its broker. Each test
 * leaves a screenshot under test-results/kiosk/ when it fails; with UPDATE_SCREENSHOTS=1 the main
 * screens are also saved for the README (docs/kiosk/).
 */
import { join } from 'node:path';
import mqtt from 'mqtt';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deviceTopic } from '../../../../shared/mqtt/topics.ts';
import {
  ensureDir,
  FAILURES_DIR,
  type KioskRig,
  PIN,
  README_SHOTS_DIR,
  STAFF,
  startKioskRig,
} from './rig.ts';

let rig: KioskRig;
const pages: Page[] = [];

beforeAll(async () => {
  rig = await startKioskRig();
}, 180_000);

afterAll(async () => {
  await rig?.close();
});

/** A failing test leaves what its pages showed behind, before they close. */
afterEach(async ({ task }) => {
  const failed = task.result?.state === 'fail';
  for (const [i, page] of pages.splice(0).entries()) {
    if (failed) {
      const file = join(ensureDir(FAILURES_DIR), `${task.name.replace(/[^a-z0-9]+/gi, '-')}-${i}.png`);
      await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    }
    await page.context().close();
  }
  expect(rig.offHost).toEqual([]);
});

async function openKiosk(size?: { width: number; height: number }) {
  const page = await rig.newPage(size);
  pages.push(page);
  await page.goto(`${rig.url}/kiosk/`);
  return page;
}

async function readmeShot(page: Page, name: string) {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  await page.screenshot({ path: join(ensureDir(README_SHOTS_DIR), `${name}.png`) });
}

async function signIn(page: Page, who: keyof typeof STAFF) {
  await page.getByTestId('staff-tile').filter({ hasText: STAFF[who].name }).click();
  for (const digit of PIN) await page.getByTestId(`key-${digit}`).click();
  await page.getByTestId('key-enter').click();
  await page.getByTestId('nav-store').waitFor();
}

/** The local API as the POS would call it, with a token of its own. */
async function api(method: string, path: string, body?: object) {
  const login = await fetch(`${rig.url}/v1/auth/login/pin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier: STAFF.manager.username, pin: PIN }),
  });
  const token = ((await login.json()) as { status: { access_token: string } }).status.access_token;
  const response = await fetch(`${rig.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.json()) as { data: unknown };
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json.data as Record<string, unknown>;
}

async function menuItem(name: string) {
  const items = (await api('GET', '/v1/commerce/menu/items')) as unknown as Array<{
    id: string;
    name: string;
  }>;
  const found = (Array.isArray(items) ? items : (items as { items: typeof items }).items).find(
    (item) => item.name === name,
  );
  if (!found) throw new Error(`no menu item ${name}`);
  return found.id;
}

/**
 * Elements (not inline) showing an amount whose text does not fit their box or runs off the
 * screen. In the page's own JavaScript: the test's TypeScript has no DOM.
 */
const CLIPPED_MONEY = `(() => {
  const money = [...document.querySelectorAll('.screen *')].filter(
    (el) =>
      getComputedStyle(el).display !== 'inline' &&
      [...el.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && /\\$\\d/.test(node.textContent)),
  );
  const cut = money
    .filter((el) => el.scrollWidth > el.clientWidth || el.getBoundingClientRect().right > window.innerWidth)
    .map((el) => el.textContent + ' (' + el.scrollWidth + ' > ' + el.clientWidth + ')');
  return { checked: money.map((el) => el.textContent), cut };
})()`;

function clippedMoney(page: Page) {
  return page.evaluate<{ checked: string[]; cut: string[] }>(CLIPPED_MONEY);
}

async function keysOutside(page: Page) {
  const size = page.viewportSize()!;
  const outside: string[] = [];
  for (const key of [...'0123456789'].map((d) => `key-${d}`).concat('key-clear', 'key-back', 'key-enter')) {
    const box = await page.getByTestId(key).boundingBox();
    if (!box || box.x < 0 || box.y < 0 || box.x + box.width > size.width || box.y + box.height > size.height)
      outside.push(key);
  }
  return outside;
}

describe('kiosk operator UI', { timeout: 90_000 }, () => {
  it('signs staff in by PIN on the keypad, and refuses a wrong PIN clearly', async () => {
    const page = await openKiosk();
    await page.getByTestId('staff-tile').first().waitFor();
    await readmeShot(page, 'sign-in');
    await page.getByTestId('staff-tile').filter({ hasText: STAFF.cashier.name }).click();
    for (const digit of '000000') await page.getByTestId(`key-${digit}`).click();
    await page.getByTestId('key-enter').click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/PIN|incorrect|wrong/i);

    await page.reload();
    await signIn(page, 'cashier');
    // A cashier does not get the manager's screens.
    expect(await page.getByTestId('nav-cameras').count()).toBe(0);
    await page.getByTestId('sign-out').click();
    await page.getByTestId('staff-tile').first().waitFor();
  });

  it('fits a small 800x480 panel: the whole keypad above the fold, no amount cut short', async () => {
    for (const size of [
      { width: 800, height: 480 },
      { width: 1024, height: 600 },
    ]) {
      // A paid order and an open one, there when the Store screen first reads them.
      const paid = await api('POST', '/v1/commerce/orders', {
        order_type: 'dine_in',
        items: [{ menu_item_id: await menuItem('Classic Burger'), quantity: 3 }],
      });
      await api('POST', `/v1/commerce/orders/${paid.id}/payments`, {
        method: 'cash',
        amount: Number(paid.total),
      });
      const open = await api('POST', '/v1/commerce/orders', {
        order_type: 'dine_in',
        items: [{ menu_item_id: await menuItem('Classic Burger'), quantity: 2 }],
      });
      await api('POST', `/v1/commerce/orders/${open.id}/send`);
      const page = await openKiosk(size);
      await page.getByTestId('staff-tile').filter({ hasText: STAFF.manager.name }).click();
      expect(await keysOutside(page), `${size.width}x${size.height}`).toEqual([]);
      if (size.width === 800) await readmeShot(page, 'sign-in-800x480');
      for (const digit of PIN) await page.getByTestId(`key-${digit}`).click();
      await page.getByTestId('key-enter').click();
      await page
        .locator(`[data-testid="order-card"][data-order-id="${open.id}"]`)
        .waitFor({ timeout: 10_000 });
      await expect.poll(() => page.getByTestId('sales-today').textContent()).not.toBe('$0.00');
      const money = await clippedMoney(page);
      expect(money.checked.length, `${size.width}x${size.height}`).toBeGreaterThan(2);
      expect(money.cut, `${size.width}x${size.height}`).toEqual([]);
      // Every screen a manager has is reachable from the rail.
      const rail = await page.getByTestId('nav-timeclock').boundingBox();
      expect(rail && rail.y + rail.height <= size.height).toBe(true);
      if (size.width === 800) await readmeShot(page, 'store-800x480');
    }
  });

  it("shows the store's time on its clock, not the kiosk machine's UTC", async () => {
    const page = await openKiosk();
    await signIn(page, 'manager');
    const clock = page.getByTestId('clock');
    await clock.waitFor();
    expect(await clock.getAttribute('data-time-zone')).toBe('America/New_York');
    const storeTime = () =>
      new Date().toLocaleTimeString('en-US', {
        hour: '2-digit',
        minute: '2-digit',
        timeZone: 'America/New_York',
      });
    // Read twice around the clock's text, so a minute turning over in between does not fail it.
    await expect
      .poll(async () => [storeTime(), await clock.textContent(), storeTime()])
      .toSatisfy(([before, shown, after]) => shown === before || shown === after);
  });

  it('shows a new order live, without a reload', async () => {
    const page = await openKiosk();
    await signIn(page, 'manager');
    const order = await api('POST', '/v1/commerce/orders', {
      order_type: 'dine_in',
      items: [{ menu_item_id: await menuItem('Classic Burger'), quantity: 2 }],
    });
    await api('POST', `/v1/commerce/orders/${order.id}/send`);
    const card = page.locator(`[data-testid="order-card"][data-order-id="${order.id}"]`);
    await card.waitFor({ timeout: 10_000 });
    expect(await card.textContent()).toContain('Classic Burger');
    // Paid, it counts in today's sales on the same screen, again without a reload.
    await api('POST', `/v1/commerce/orders/${order.id}/payments`, {
      method: 'cash',
      amount: Number(order.total),
    });
    await expect
      .poll(() => page.getByText(`$${Number(order.total).toFixed(2)}`).count(), { timeout: 10_000 })
      .toBeGreaterThan(1);
    await readmeShot(page, 'store');
  });

  it('raises a verification mismatch with a banner until someone dismisses it', async () => {
    const page = await openKiosk();
    await signIn(page, 'manager');
    // The pickup camera's trays hold a cheeseburger, fries and a soda: the milkshake is missing.
    const items = await Promise.all(
      ['Cheeseburger', 'Fries', 'Soda', 'Milkshake'].map(async (name) => ({
        menu_item_id: await menuItem(name),
        quantity: 1,
      })),
    );
    const order = await api('POST', '/v1/commerce/orders', { order_type: 'drive_thru', items });
    await api('POST', `/v1/commerce/orders/${order.id}/send`);
    for (const item of order.items as Array<{ id: string }>)
      await api('POST', `/v1/commerce/orders/${order.id}/items/${item.id}/complete`);
    const banner = page.getByTestId('mismatch-banner');
    await banner.waitFor({ timeout: 30_000 });
    expect(await banner.textContent()).toMatch(/Milkshake/i);
    await page.getByTestId('nav-verification').click();
    await readmeShot(page, 'verification');
    await page.getByTestId('mismatch-dismiss').click();
    await banner.waitFor({ state: 'detached' });
  });

  it('says sales continue while the cloud is away, and clears the banner when it is back', async () => {
    const page = await openKiosk();
    await signIn(page, 'manager');
    await page.getByTestId('nav-sync').click();
    await expect.poll(() => page.getByTestId('offline-banner').count(), { timeout: 30_000 }).toBe(0);
    await rig.stopCloud();
    const banner = page.getByTestId('offline-banner');
    await banner.waitFor({ timeout: 30_000 });
    expect(await banner.textContent()).toMatch(/sales continue/i);
    await readmeShot(page, 'sync-offline');
    await rig.startCloud();
    await banner.waitFor({ state: 'detached', timeout: 30_000 });
  });

  it('shows a device going offline', async () => {
    const page = await openKiosk();
    await signIn(page, 'manager');
    await page.getByTestId('nav-devices').click();
    const location = ((await api('GET', '/v1/commerce/location')) as { location_id: string }).location_id;
    const topic = (channel: 'status' | 'telemetry') =>
      deviceTopic({ deviceType: 'sensor', locationId: location, deviceId: 'walk-in-fridge', channel });
    expect(rig.mqttPort).toBeGreaterThan(0);
    const fridge = await mqtt.connectAsync(`mqtt://127.0.0.1:${rig.mqttPort}`, {
      clientId: 'walk-in-fridge',
      reconnectPeriod: 0,
    });
    await fridge.publishAsync(topic('status'), JSON.stringify({ online: true, firmware: '1.4.2' }), {
      qos: 1,
    });
    for (const temperature_c of [3.1, 3.4, 3.2, 3.8, 4.1])
      await fridge.publishAsync(topic('telemetry'), JSON.stringify({ temperature_c }), { qos: 1 });
    const row = page.locator('[data-testid="device-row"][data-device-id="walk-in-fridge"]');
    await expect
      .poll(() => row.getByTestId('device-status').textContent(), { timeout: 15_000 })
      .toMatch(/online/i);
    await readmeShot(page, 'devices');
    await fridge.endAsync();
    await expect
      .poll(() => row.getByTestId('device-status').textContent(), { timeout: 15_000 })
      .toMatch(/offline/i);
  });

  it('shows the drive-thru lane from the camera: the queue, its chart, and the frame with boxes', async () => {
    const page = await openKiosk({ width: 1920, height: 1080 });
    await signIn(page, 'manager');
    await page.getByTestId('nav-drive-thru').click();
    await expect
      .poll(() => page.getByTestId('lane-status').textContent(), { timeout: 30_000 })
      .toMatch(/normal|busy|critical/i);
    const thumb = page.locator('[data-testid="camera-thumb"][data-camera-id="demo-lane"]');
    await thumb.locator('img').waitFor({ timeout: 20_000 });
    // The picture is a real decoded frame of the lane's video, its boxes the model's on that frame.
    await thumb.locator('svg rect').first().waitFor({ timeout: 20_000 });
    await page.locator('.uplot canvas').first().waitFor({ timeout: 20_000 });
    await readmeShot(page, 'drive-thru');
  });

  it('refuses a bad camera setting in the form, before it reaches the appliance', async () => {
    const page = await openKiosk({ width: 1920, height: 1080 });
    await signIn(page, 'manager');
    await page.getByTestId('nav-cameras').click();
    const form = page.getByTestId('camera-settings-form').first();
    await form.waitFor();
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PUT') sent.push(request.url());
    });
    await form.getByLabel(/inference fps/i).fill('500');
    await form.getByRole('button', { name: /save/i }).click();
    await form.getByTestId('field-error').first().waitFor();
    expect(await form.getByTestId('field-error').first().textContent()).toMatch(/fps|between|at most|30/i);
    expect(sent).toEqual([]);
    await readmeShot(page, 'cameras');
  });
});
