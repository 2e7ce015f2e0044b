/**
 * What the console's tests check on any screen, in the page's own JavaScript (the tests'
 * TypeScript has no DOM): axe-core's rules, where focus is and whether it shows, page-level
 * scrolling; and how a test waits for a screen that may not be written yet.
 */
import { createRequire } from 'node:module';
import type { Locator, Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

/** `locator` once it is there; a screen showing an error instead, or nothing in time, fails. */
export async function need(page: Page, locator: Locator, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await locator.count()) > 0) return locator.first();
    const where = new URL(page.url()).pathname;
    const shown = page.getByTestId('error');
    if ((await shown.count()) > 0)
      throw new Error(`${what}: the screen at ${where} shows "${await shown.first().textContent()}"`);
    if (Date.now() > deadline)
      throw new Error(`${what}: not on the screen at ${where} after ${timeoutMs} ms`);
    await page.waitForTimeout(200);
  }
}

/** Runs a test's steps in order; a failure says which step it happened in. */
export function steps() {
  return {
    async step(name: string, run: () => Promise<void>) {
      try {
        await run();
      } catch (error) {
        throw new Error(`${name}: ${(error as Error).message}`, { cause: error });
      }
    },
  };
}

/**
 * The screen has loaded what it shows: its heading is up and nothing spins or is busy. Not the
 * network going quiet: the live feed and the screens' refreshes keep it from ever doing so.
 */
export async function settle(page: Page) {
  await page.locator('main h1').first().waitFor({ timeout: 15_000 });
  // Locators, not waitForFunction: Playwright evaluates a predicate with eval, which the CSP refuses.
  const busy = page.locator('.loading, .spinner, [aria-busy="true"]');
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    if ((await busy.count()) === 0) break;
    await page.waitForTimeout(100);
  }
  await page.waitForTimeout(250);
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; summary: string }>;
}

/** axe-core's violations of impact serious or critical on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.addScriptTag({ path: AXE });
  return page.evaluate<AxeViolation[]>(`axe
    .run(document, { resultTypes: ['violations'] })
    .then((result) => result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target.map(String), summary: n.failureSummary || '' })),
      })))`);
}

export const describeViolations = (where: string, violations: AxeViolation[]) =>
  violations
    .map(
      (v) =>
        `${where}: ${v.id} (${v.impact}) ${v.help}\n${v.nodes
          .map((n) => `    ${n.target.join(' ')}: ${n.summary.replace(/\s+/g, ' ')}`)
          .join('\n')}`,
    )
    .join('\n');

export interface Focused {
  tag: string;
  text: string;
  className: string;
  href: string | null;
  inNav: boolean;
  /** A visible focus indicator: an outline or a box shadow. */
  indicated: boolean;
  inViewport: boolean;
}

export const focused = (page: Page) =>
  page.evaluate<Focused>(`(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { tag: 'body', text: '', className: '', href: null, inNav: false, indicated: false, inViewport: false };
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    const shadow = style.boxShadow !== 'none' && style.boxShadow !== '';
    const box = el.getBoundingClientRect();
    return {
      tag: el.tagName.toLowerCase(),
      text: (el.textContent || '').trim().slice(0, 60),
      className: String(el.className || ''),
      href: el.getAttribute('href'),
      inNav: Boolean(el.closest('nav')),
      indicated: outline || shadow,
      inViewport: box.width > 0 && box.height > 0 && box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth,
    };
  })()`);

/** How far the page itself scrolls sideways (0: it fits), and the widest elements when it does not. */
export const horizontalOverflow = (page: Page) =>
  page.evaluate<{ overflow: number; widest: string[] }>(`(() => {
    const overflow = document.documentElement.scrollWidth - innerWidth;
    const widest = overflow <= 0 ? [] : [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > innerWidth + 1)
      .slice(0, 5)
      .map((el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' right=' + Math.round(el.getBoundingClientRect().right));
    return { overflow, widest };
  })()`);

/** Errors the page logs and CSP violations it reports, from the moment this is called. */
export async function collectProblems(page: Page) {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const at = message.location().url;
    problems.push(`console error: ${message.text()}${at ? ` (${at})` : ''}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  await page.exposeFunction('__reportCspViolation', (text: string) =>
    problems.push(`CSP violation: ${text}`),
  );
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) =>
    window.__reportCspViolation(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber));`);
  return problems;
}
