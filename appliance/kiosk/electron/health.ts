/**
 * Waiting for the local API before the kiosk loads its UI: at boot the screen comes up before the
 * appliance runtime listens, and after a runtime restart the UI's origin answers nothing for a
 * while. The kiosk asks `/health` until it answers, backing off a little, for as long as it takes
 * (there is nothing else to show), and reports each failed try so the "starting" page can say why.
 */

export interface HealthProbe {
  /** One GET of the health URL, answering its HTTP status; throws when nothing answers. */
  fetch(url: string, signal: AbortSignal): Promise<number>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  now(): number;
}

export interface WaitForApiOptions {
  signal: AbortSignal;
  /** After each failed try: how long the kiosk has been waiting and what the try found. */
  onWaiting?(elapsedMs: number, problem: string): void;
  requestTimeoutMs?: number;
}

export function healthUrl(origin: string): string {
  return `${origin}/health`;
}

/**
 * The health route answers 200 (healthy) or 503 (degraded, e.g. its database check failed).
 * Either way the API is up and serves the UI, which shows what is wrong better than a blank
 * "starting" page would; any other status is not the appliance's API.
 */
export function apiIsUp(status: number): boolean {
  return status === 200 || status === 503;
}

/** Quick tries while the runtime starts, then one every two seconds. */
export function retryDelayMs(attempt: number): number {
  return Math.min(250 * 2 ** attempt, 2000);
}

/** Resolves once `/health` answers; rejects only when `signal` aborts. */
export async function waitForApi(url: string, probe: HealthProbe, options: WaitForApiOptions) {
  const started = probe.now();
  const timeoutMs = options.requestTimeoutMs ?? 2000;
  for (let attempt = 0; ; attempt += 1) {
    options.signal.throwIfAborted();
    const problem = await tryOnce(
      url,
      probe,
      AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]),
    );
    if (problem === undefined) return;
    options.signal.throwIfAborted();
    options.onWaiting?.(probe.now() - started, problem);
    await probe.sleep(retryDelayMs(attempt), options.signal);
  }
}

/** Undefined when the API is up, otherwise what went wrong. */
async function tryOnce(url: string, probe: HealthProbe, signal: AbortSignal) {
  try {
    const status = await probe.fetch(url, signal);
    return apiIsUp(status) ? undefined : `HTTP ${status}`;
  } catch (error) {
    return (error as Error).message;
  }
}
