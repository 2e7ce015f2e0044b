import pino from 'pino';
import { stopOnSignal } from '../../shared/process/stop-on-signal.ts';
import { ConfigError, type EdgeConfig, loadEdgeConfig } from './config.ts';
import { startEdge } from './index.ts';

async function main() {
  let config: EdgeConfig;
  try {
    config = loadEdgeConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`edge: ${error.message}\n`);
    process.exit(2);
  }
  const log = pino({ level: config.logLevel });
  const edge = await startEdge(config, { log });
  stopOnSignal(() => edge.stop(), log);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stderr.write(`edge: failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
