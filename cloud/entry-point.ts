import pino, { type Logger } from 'pino';
import { stopOnSignal } from '../shared/process/stop-on-signal.ts';
import { type CloudConfig, ConfigError, loadCloudConfig } from './config.ts';

/**
 * How each of the cloud's processes starts when it is the script node runs (`moduleUrl` is the
 * entry file's `import.meta.url`; imported, it does nothing): the configuration from the
 * environment, where a bad variable stops the process with exit code 2 and a line naming it; then
 * `start`, stopped cleanly on SIGTERM or SIGINT; a failure to start exits 1.
 */
export function runEntryPoint(
  name: string,
  moduleUrl: string,
  start: (config: CloudConfig, log: Logger) => Promise<{ stop(): Promise<void> }>,
) {
  if (moduleUrl !== `file://${process.argv[1]}`) return;
  let config: CloudConfig;
  try {
    config = loadCloudConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${name}: ${error.message}\n`);
    process.exit(2);
  }
  const log = pino({ level: config.logLevel });
  start(config, log).then(
    (running) => stopOnSignal(() => running.stop(), log),
    (error: unknown) => {
      process.stderr.write(`${name}: failed to start: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
