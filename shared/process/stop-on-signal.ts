/**
 * SIGTERM or SIGINT stops the process cleanly: `stop` drains requests and closes stores, then the
 * process exits 0, or 1 when stopping failed. Every entry point (cloud, appliance, npm start) uses it.
 */
export function stopOnSignal(
  stop: () => Promise<void>,
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void },
) {
  const shutdown = (signal: string) => {
    log.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
