/**
 * The fleet console in Chromium against a real restaurant group: a cloud process, the demo store's
 * appliance process syncing with it, and the console the cloud serves at /console/. Every step is
 * checked against the system as well as the page: the API a token no longer opens, the price the
 * store's own API answers, the order the store cancelled, the delivery the receiver got. A failing
 * test leaves its pages' screenshots under test-results/console/; with UPDATE_SCREENSHOTS=1 the
 * README's screenshots (docs/console/) are taken at the end.
 */
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { client, ok } from '../../support/json-client.ts';
import { waitFor } from '../../support/processes.ts';
import { createReceiver } from '../../support/webhooks.ts';
import {
  collectProblems,
  describeViolations,
  focused,
  horizontalOverflow,
  need,
  seriousViolations,
  settle,
  steps,
} from './checks.ts';
import {
  cloudHasOrder,
  detailPages,
  everyScreen,
  ingestAlert,
  mfaFactor,
  orderAtStore,
  totp,
  unexpected,
} from './fleet.ts';
import {
  type ConsoleRig,
  DEMO,
  ensureDir,
  FAILURES_DIR,
  README_SHOTS_DIR,
  signIn,
  startConsoleRig,
  storeMenu,
} from './rig.ts';

let rig: ConsoleRig;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  rig = await startConsoleRig();
}, 600_000);

afterAll(async () => {
  await rig?.close();
});

/** A failing test leaves what its pages showed behind, before they close. */
afterEach(async ({ task }) => {
  const failed = task.result?.state === 'fail';
  for (const [i, context] of contexts.splice(0).entries()) {
    for (const [j, page] of context.pages().entries())
      if (failed) {
        const file = join(ensureDir(FAILURES_DIR), `${task.name.replace(/[^a-z0-9]+/gi, '-')}-${i}-${j}.png`);
        await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      }
    await context.close();
  }
});

/** A page of a fresh browser context (no cookie, no memory) with the console open at `path`. */
async function openConsole(path = '/', options: Parameters<ConsoleRig['newContext']>[0] = {}) {
  const context = await rig.newContext(options);
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${rig.cloudUrl}/console${path}`);
  return page;
}

async function signedIn(path = '/stores', options: Parameters<ConsoleRig['newContext']>[0] = {}) {
  const page = await openConsole(path, options);
  await signIn(page, DEMO.admin.email, DEMO.admin.password);
  return page;
}

/** Opens a screen by its path in the same session (a reload: the cookie signs it back in). */
async function visit(page: Page, path: string) {
  await page.goto(`${rig.cloudUrl}/console${path}`);
  await page.getByTestId('sign-out').waitFor();
  await settle(page);
}

/** The access tokens the page sends, newest last. */
function bearerTokens(page: Page) {
  const tokens: string[] = [];
  page.on('request', (request) => {
    const header = request.headers().authorization;
    if (header?.startsWith('Bearer ')) tokens.push(header.slice('Bearer '.length));
  });
  return tokens;
}

const row = (page: Page, testId: string, attribute: string, value: string) =>
  page.locator(`[data-testid="${testId}"][data-${attribute}="${value}"]`);

/** Changes an item's price on the Menu screen (in dollars, as it shows them) and publishes it. */
async function publishPrice(page: Page, item: string, cents: number) {
  await page.getByTestId('menu-brand').selectOption({ label: DEMO.brand });
  const price = row(page, 'menu-item-row', 'item-name', item).getByTestId('price-input');
  await price.fill((cents / 100).toFixed(2));
  await page.getByTestId('publish').click();
}

describe('fleet console', { timeout: 120_000 }, () => {
  it('signs in with a password, keeps the session in an http-only cookie through a reload, and ends it on sign-out', async () => {
    const { step } = steps();
    const page = await openConsole('/');
    const tokens = bearerTokens(page);
    await signIn(page, DEMO.admin.email, DEMO.admin.password);
    await page.waitForURL('**/console/stores');

    await step('the store online in the list', async () => {
      const store = await need(page, row(page, 'store-row', 'location-id', rig.locationId), 'store-row');
      await expect
        .poll(() => store.getByTestId('store-status').textContent(), { timeout: 30_000 })
        .toBe('Online');
      const fleet = await ok<{ online: boolean }>(rig.cloud('GET', `/v1/fleet/stores/${rig.locationId}`));
      expect(fleet.online).toBe(true);
    });

    const cookies = await page.context().cookies();
    const refresh = cookies.find((cookie) => cookie.name === 'refresh_token');
    expect(refresh, JSON.stringify(cookies)).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
      path: '/v1/auth',
    });
    const stored = await page.evaluate<string>(
      'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })',
    );
    expect(tokens.length).toBeGreaterThan(0);
    for (const secret of [refresh!.value, tokens.at(-1)!]) expect(stored).not.toContain(secret);
    expect(stored).not.toMatch(/eyJ[\w-]+\.[\w-]+/);

    await page.reload();
    await page.getByTestId('sign-out').waitFor();
    expect(await page.getByTestId('signin-form').count()).toBe(0);
    const token = await waitFor('a request with the renewed token', () =>
      tokens.at(-1) !== tokens[0] ? tokens.at(-1) : undefined,
    );
    expect((await client(rig.cloudUrl, token)('GET', '/v1/auth/me')).status).toBe(200);

    await page.getByTestId('sign-out').click();
    await page.getByTestId('signin-form').waitFor();
    await expect.poll(async () => (await client(rig.cloudUrl, token)('GET', '/v1/auth/me')).status).toBe(401);
    const after = await page.context().cookies();
    expect(after.find((cookie) => cookie.name === 'refresh_token')).toBeUndefined();
  });

  it('asks a user with an authenticator for a code, refuses a wrong one, and signs in with the right one', async () => {
    const secret = await mfaFactor(rig);
    const page = await openConsole('/');
    const tokens = bearerTokens(page);
    const form = page.getByTestId('signin-form');
    await form.waitFor();
    await form.locator('input[name="email"]').fill(DEMO.mfaUser.email);
    await form.locator('input[name="password"]').fill(DEMO.mfaUser.password);
    await form.locator('button[type="submit"]').click();
    const mfa = page.getByTestId('mfa-form');
    await mfa.waitFor();
    // A code of none of the steps the cloud accepts now (this one, the one before, the one after).
    const now = Date.now();
    const valid = new Set([-30_000, 0, 30_000].map((delta) => totp(secret, now + delta)));
    const wrong = ['111111', '222222', '333333', '444444'].find((code) => !valid.has(code))!;
    await mfa.locator('input[name="code"]').fill(wrong);
    await mfa.locator('button[type="submit"]').click();
    await mfa.getByRole('alert').waitFor();
    expect(await page.getByTestId('sign-out').count()).toBe(0);
    // The step after the one activation used: the cloud refuses a step it has accepted before.
    await mfa.locator('input[name="code"]').fill(totp(secret, Date.now() + 30_000));
    await mfa.locator('button[type="submit"]').click();
    await page.getByTestId('sign-out').waitFor();
    const me = await ok<{ email: string }>(client(rig.cloudUrl, tokens.at(-1))('GET', '/v1/auth/me'));
    expect(me.email).toBe(DEMO.mfaUser.email);
  });

  it("publishes a price change to the brand's stores, which the store's own API then answers", async () => {
    const { step } = steps();
    const page = await signedIn('/menu');
    await step('publish a price from the Menu screen', async () => {
      await need(page, page.getByTestId('menu-brand'), 'menu-brand');
      const before = (await storeMenu(rig.appliance)).find((i) => i.name === 'Classic Burger')!.price_minor;
      await publishPrice(page, 'Classic Burger', before + 100);
      const progress = await need(page, page.getByTestId('publish-progress'), 'publish-progress');
      await progress.and(page.locator('[data-done="true"]')).waitFor({ timeout: 60_000 });
      const landed = async () =>
        (await storeMenu(rig.appliance)).find((i) => i.name === 'Classic Burger')?.price_minor;
      await expect.poll(landed, { timeout: 60_000 }).toBe(before + 100);
    });
  });

  it('voids an order at its store after a confirmation naming the store', async () => {
    const { step } = steps();
    const order = await orderAtStore(rig);
    await cloudHasOrder(rig, order.id);
    const page = await signedIn('/orders');
    await step('void from the order page', async () => {
      const found = await need(page, row(page, 'order-row', 'order-id', order.id), 'order-row');
      await found.locator('a').first().click();
      await page.waitForURL(`**/console/orders/${order.id}`);
      await (await need(page, page.getByTestId('void-order'), 'void-order')).click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain(DEMO.store);
      await dialog.getByTestId('confirm').click();
      await dialog.waitFor({ state: 'detached' });
      await expect
        .poll(
          async () =>
            (await ok<{ status: string }>(rig.appliance('GET', `/v1/commerce/orders/${order.id}`))).status,
          {
            timeout: 60_000,
            interval: 500,
          },
        )
        .toBe('cancelled');
      await expect
        .poll(() => page.getByTestId('order-status').textContent(), { timeout: 30_000 })
        .toMatch(/cancel/i);
    });
  });

  it('shows an alert ingested through the API without a reload, and acknowledges it', async () => {
    const { step } = steps();
    const page = await signedIn('/alerts');
    await settle(page);
    const alertId = await ingestAlert(rig, 'Walk-in fridge above 5 °C', 'devices');
    await step('acknowledge from the Alerts screen', async () => {
      const shown = row(page, 'alert-row', 'alert-id', alertId);
      await need(page, shown, 'alert-row', 20_000);
      await shown.getByTestId('acknowledge').click();
      await expect
        .poll(
          async () => (await ok<{ status: string }>(rig.cloud('GET', `/api/v1/alerts/${alertId}`))).status,
          {
            timeout: 15_000,
          },
        )
        .toBe('acknowledged');
      await expect.poll(() => shown.getByTestId('alert-status').textContent()).toMatch(/acknowledged/i);
    });
  });

  it('retries a failed webhook delivery, which the receiver then gets', async () => {
    const { step } = steps();
    let answer = 500;
    const receiver = await createReceiver(() => ({ status: answer }));
    try {
      const created = await rig.cloud('POST', '/api/v1/webhooks', {
        url: receiver.url('/orders'),
        description: 'Order feed to the POS vendor',
        events: ['order.*'],
        settings: { retry_policy: { max_attempts: 1, backoff: 'fixed' } },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const webhookId = String(created.body.id);
      await orderAtStore(rig);
      type Deliveries = { deliveries: Array<{ id: string; event_id: string; status: string }> };
      const failed = await waitFor('a failed delivery', async () => {
        const { body } = await rig.cloud('GET', `/api/v1/webhooks/${webhookId}/deliveries?status=failed`);
        return (body as unknown as Deliveries).deliveries[0];
      });
      const page = await signedIn('/webhooks');
      await step('retry from the Webhooks screen', async () => {
        // The admin interface's subscriptions are on their own tab: retry is theirs.
        await page.getByRole('tab', { name: 'Admin' }).click();
        const subscription = await need(
          page,
          row(page, 'webhook-row', 'webhook-id', webhookId),
          'webhook-row',
        );
        await subscription.locator('a').first().click();
        await page.waitForURL(`**/console/webhooks/${webhookId}*`);
        const delivery = await need(
          page,
          row(page, 'delivery-row', 'delivery-id', failed.id),
          'delivery-row',
        );
        expect(await delivery.getAttribute('data-delivery-status')).toBe('failed');
        await delivery.getByTestId('open-delivery').click();
        const detail = row(page, 'delivery-detail', 'delivery-id', failed.id);
        const retry = await need(page, detail.getByTestId('retry-delivery'), 'retry-delivery');
        const before = receiver.received.length;
        answer = 200;
        await retry.click();
        await waitFor('the retried delivery at the receiver', () =>
          receiver.received.slice(before).find((r) => JSON.parse(r.body).id === failed.event_id),
        );
        await page
          .locator('[data-testid="retry-result"][data-delivery-status="success"]')
          .waitFor({ timeout: 30_000 });
        await page
          .locator('[data-testid="delivery-row"][data-delivery-status="success"]')
          .first()
          .waitFor({ timeout: 30_000 });
        const { body } = await rig.cloud('GET', `/api/v1/webhooks/${webhookId}/deliveries?status=success`);
        expect((body as unknown as Deliveries).deliveries.map((d) => d.event_id)).toContain(failed.event_id);
      });
    } finally {
      await receiver.close();
    }
  });

  it('serves /console/ with headers that keep it to its own origin, and no screen logs an error or a CSP violation', async () => {
    for (const path of ['/console/', `/console/stores/${rig.locationId}`]) {
      const response = await fetch(`${rig.cloudUrl}${path}`);
      expect(response.status, path).toBe(200);
      const csp = response.headers.get('content-security-policy') ?? '';
      const directives = new Map(
        csp.split(';').map((d) => {
          const [name = '', ...values] = d.trim().split(/\s+/);
          return [name, values] as const;
        }),
      );
      expect(directives.get('frame-ancestors'), csp).toEqual(["'none'"]);
      const scripts = directives.get('script-src') ?? directives.get('default-src') ?? [];
      expect(scripts.length, csp).toBeGreaterThan(0);
      expect(scripts, csp).not.toContain("'unsafe-inline'");
      expect(scripts, csp).not.toContain("'unsafe-eval'");
      expect(response.headers.get('x-frame-options'), path).toMatch(/^(DENY|SAMEORIGIN)$/i);
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), path).toBeTruthy();
    }

    const { step } = steps();
    await detailPages(rig);
    const contextForPage = await rig.newContext();
    contexts.push(contextForPage);
    const page = await contextForPage.newPage();
    const problems = await collectProblems(page);
    await page.goto(`${rig.cloudUrl}/console/`);
    // Before signing in the page asks for a session through the cookie it does not have yet (401).
    await signIn(page, DEMO.admin.email, DEMO.admin.password);
    await settle(page);
    const from = problems.length;
    const nav = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
    const labels = await nav.allInnerTexts();
    expect(labels.length).toBeGreaterThanOrEqual(9);
    for (const label of labels) {
      await nav.getByText(label, { exact: true }).click();
      await settle(page);
    }
    // The detail pages, reached as a user reaches them: by the links of the lists.
    const details: Array<[string, string, string]> = [
      ['Stores', 'store-row', '/stores/'],
      ['Orders', 'order-row', '/orders/'],
      ['Alerts', 'incident-row', '/incidents/'],
    ];
    for (const [label, testId, path] of details)
      await step(`a page under ${label}`, async () => {
        await nav.getByText(label, { exact: true }).click();
        if (testId === 'incident-row') await page.getByRole('tab', { name: 'Incidents' }).click();
        const link = await need(page, page.getByTestId(testId).locator('a'), `${testId} link`);
        await link.click();
        await page.waitForURL(`**/console${path}*`);
        await settle(page);
      });
    expect(unexpected(problems.slice(from)).join('\n')).toBe('');
  });

  it('has no serious or critical accessibility violation on any screen, and a keyboard path through the frame', async () => {
    const found: string[] = [];
    await mfaFactor(rig);
    // axe-core is a script the console's CSP rightly refuses: this context alone ignores the CSP.
    const page = await openConsole('/', { bypassCSP: true });
    await page.getByTestId('signin-form').waitFor();
    found.push(describeViolations('sign-in', await seriousViolations(page)));
    const form = page.getByTestId('signin-form');
    await form.locator('input[name="email"]').fill(DEMO.mfaUser.email);
    await form.locator('input[name="password"]').fill(DEMO.mfaUser.password);
    await form.locator('button[type="submit"]').click();
    await page.getByTestId('mfa-form').waitFor();
    found.push(describeViolations('MFA form', await seriousViolations(page)));
    await page.context().clearCookies();
    await page.goto(`${rig.cloudUrl}/console/`);
    await signIn(page, DEMO.admin.email, DEMO.admin.password);
    for (const path of await everyScreen(rig)) {
      await visit(page, path);
      found.push(describeViolations(path, await seriousViolations(page)));
    }
    expect(found.filter(Boolean).join('\n')).toBe('');

    // A page just opened: the first Tab reaches the skip link (the app moves the focus to the
    // content only when the user navigates).
    await visit(page, '/stores');
    await page.keyboard.press('Tab');
    const first = await focused(page);
    expect(first.className, JSON.stringify(first)).toContain('skip-link');
    expect(first.inViewport, 'the skip link shows when focused').toBe(true);
    const navLinks: string[] = [];
    for (let i = 0; i < 30 && navLinks.length < 9; i += 1) {
      await page.keyboard.press('Tab');
      const now = await focused(page);
      if (!now.inNav) continue;
      expect(now.indicated, `focus is visible on ${now.text}`).toBe(true);
      navLinks.push(now.text);
    }
    expect(navLinks).toEqual([
      'Stores',
      'Menu',
      'Orders',
      'Reports',
      'Alerts',
      'Webhooks',
      'Devices',
      'Users',
      'Billing',
    ]);
  });

  it('fits a 1024x768 screen: no screen scrolls sideways at the page level', async () => {
    const page = await signedIn('/stores', { size: { width: 1024, height: 768 } });
    const wide: string[] = [];
    for (const path of await everyScreen(rig)) {
      await visit(page, path);
      const { overflow, widest } = await horizontalOverflow(page);
      if (overflow > 0) wide.push(`${path}: ${overflow}px wider than the window (${widest.join(', ')})`);
    }
    expect(wide).toEqual([]);
  });

  it.runIf(process.env.UPDATE_SCREENSHOTS === '1')('takes the README screenshots', async () => {
    const page = await signedIn('/stores', { size: { width: 1440, height: 900 } });
    const shot = (name: string) =>
      page.screenshot({ path: join(ensureDir(README_SHOTS_DIR), `${name}.png`) });
    const { orderId } = await detailPages(rig);
    // Something firing, for the Alerts screen to show.
    await ingestAlert(rig, 'Drive-thru wait above 4 minutes', 'vision');
    await ingestAlert(rig, 'Receipt printer out of paper', 'devices');
    // A subscription's deliveries (the retry test's, when it ran) say more than an empty list.
    const hooks = await rig.cloud('GET', '/api/v1/webhooks');
    const hook = (hooks.body as { webhooks?: Array<{ id: string }> }).webhooks?.[0];
    for (const [name, path] of [
      ['stores', '/stores'],
      ['store', `/stores/${rig.locationId}`],
      ['orders', '/orders'],
      ['order', `/orders/${orderId}`],
      ['reports', '/reports'],
      ['alerts', '/alerts'],
      ['webhooks', hook ? `/webhooks/${hook.id}` : '/webhooks?tab=admin'],
    ] as const) {
      await visit(page, path);
      await shot(name);
    }
    // The menu while a price change is on its way to the stores.
    await visit(page, '/menu');
    const fries = (await storeMenu(rig.appliance)).find((i) => i.name === 'Fries')!.price_minor;
    await publishPrice(page, 'Fries', fries + 30);
    await page.getByTestId('publish-progress').waitFor();
    await shot('menu');
  });
});
