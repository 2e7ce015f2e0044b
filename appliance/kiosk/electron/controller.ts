/**
 * The kiosk window's life, apart from Electron so it is tested without it: the "starting" page
 * until the local API answers, then the operator UI; the starting page again when a load of the
 * UI fails (the runtime restarting, an update); and the watchdog's remedies — a hung renderer is
 * killed and reloaded, a crashed one reloaded, and the window recreated when reloads do not help.
 * main.ts forwards Electron's events here and gives access to the current window's page.
 */
import type { Logger } from 'pino';
import { isAllowedNavigation, kioskOrigin } from './navigation.ts';
import { startingPageUrl } from './starting-page.ts';
import {
  createRendererWatchdog,
  type RemedyCause,
  WATCHDOG_TIMINGS,
  type WatchdogOptions,
} from './watchdog.ts';

/** The part of Electron's WebContents the controller drives. */
export interface KioskPage {
  loadURL(url: string): Promise<void>;
  reload(): void;
  forcefullyCrashRenderer(): void;
}

export interface LoadFailure {
  errorCode: number;
  url: string;
  isMainFrame: boolean;
}

export interface KioskControllerOptions {
  kioskUrl: string;
  /** The current window's page; undefined while there is no window. */
  page(): KioskPage | undefined;
  /** Destroys the window and opens a new one. */
  recreateWindow(): void;
  /** Resolves when the local API answers (see health.ts); rejects when `signal` aborts. */
  waitForApi(signal: AbortSignal, onWaiting: (elapsedMs: number) => void): Promise<void>;
  /** What the starting page says after waiting this long (see starting-page.ts). */
  describeWait(elapsedMs: number): string;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Timings and timers for the watchdog; the kiosk's own (WATCHDOG_TIMINGS) by default. */
  watchdog?: Partial<Omit<WatchdogOptions, 'reload' | 'recreate'>>;
}

/** Chromium's ERR_ABORTED: a load replaced by another, not a failure. */
const ERR_ABORTED = -3;
/** After a failed load of the UI, before trying again (the API may answer /health but not the UI). */
const RETRY_AFTER_FAILED_LOAD_MS = 2000;

export function createKioskController(options: KioskControllerOptions) {
  const { log } = options;
  const origin = kioskOrigin(options.kioskUrl);
  const abort = new AbortController();
  let showing: Promise<void> | undefined;
  let shownDetail: string | undefined;
  let failedLoad = false;
  let killedByUs = false;

  const watchdog = createRendererWatchdog({
    ...WATCHDOG_TIMINGS,
    ...options.watchdog,
    reload: remedy,
    recreate: (cause) => {
      log.error({ cause }, 'kiosk renderer did not recover after reloads; recreating the window');
      options.recreateWindow();
      shownDetail = undefined;
      void showApp();
    },
  });

  function load(url: string) {
    // A load that fails is reported by did-fail-load too, which is where it is handled.
    options
      .page()
      ?.loadURL(url)
      .catch(() => undefined);
  }

  function showStarting(elapsedMs: number) {
    const detail = options.describeWait(elapsedMs);
    if (detail === shownDetail) return;
    shownDetail = detail;
    load(startingPageUrl(detail));
  }

  async function waitAndLoad() {
    shownDetail = undefined;
    showStarting(0);
    if (failedLoad) await options.sleep(RETRY_AFTER_FAILED_LOAD_MS, abort.signal);
    failedLoad = false;
    await options.waitForApi(abort.signal, showStarting);
    watchdog.beat();
    load(options.kioskUrl);
  }

  /** The starting page, then the UI once the API answers; one wait at a time. */
  function showApp(): Promise<void> {
    showing ??= waitAndLoad()
      .catch((error: unknown) => {
        if (!abort.signal.aborted) log.error({ err: error }, 'kiosk could not show the operator UI');
      })
      .finally(() => {
        showing = undefined;
      });
    return showing;
  }

  function remedy(cause: RemedyCause) {
    const page = options.page();
    if (page === undefined) return;
    log.warn({ cause }, 'kiosk renderer remedied: reloading');
    if (cause === 'hung') {
      // A hung renderer does not reload by being asked; killing it first gives the page a new process.
      killedByUs = true;
      page.forcefullyCrashRenderer();
    }
    page.reload();
  }

  return {
    start() {
      watchdog.start();
      return showApp();
    },
    stop() {
      abort.abort();
      watchdog.stop();
    },
    showApp,
    heartbeat() {
      killedByUs = false;
      watchdog.beat();
    },
    unresponsive: () => watchdog.unresponsive(),
    responsive: () => watchdog.responsive(),
    renderProcessGone(reason: string) {
      if (killedByUs) {
        killedByUs = false;
        return;
      }
      log.error({ reason }, 'kiosk renderer gone');
      watchdog.crashed();
    },
    /** Only a failed load of the UI's own main frame sends the kiosk back to waiting for the API. */
    loadFailed(failure: LoadFailure) {
      if (!failure.isMainFrame || failure.errorCode === ERR_ABORTED) return;
      if (!isAllowedNavigation(failure.url, origin)) return;
      log.warn(
        { errorCode: failure.errorCode, url: failure.url },
        'kiosk UI failed to load; waiting for the API',
      );
      failedLoad = true;
      void showApp();
    },
  };
}

export type KioskController = ReturnType<typeof createKioskController>;
