import { buildApplianceApp } from './app.ts';
import { type ApplianceConfig, ApplianceConfigError, loadApplianceConfig } from './config.ts';

async function main() {
  let config: ApplianceConfig;
  try {
    config = loadApplianceConfig(process.env);
  } catch (error) {
    if (!(error instanceof ApplianceConfigError)) throw error;
    process.stderr.write(`appliance: ${error.message}\n`);
    process.exit(2);
  }
  const app = await buildApplianceApp(config);
  await app.listen({ port: config.port, host: config.host });
  const shutdown = (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    // close() stops accepting connections and waits for requests in flight.
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`appliance: failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
