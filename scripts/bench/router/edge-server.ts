/**
 * The edge router for the benchmark, in its own process as in production: in front of the gateway
 * at GATEWAY_URL, tenants under `localhost`, the limiter in memory at its spec'd 100 per minute.
 */
import { loadEdgeConfig } from '../../../cloud/edge/config.ts';
import { startEdge } from '../../../cloud/edge/index.ts';
import { runUntilStopped } from '../servers/lifecycle.ts';

runUntilStopped({
  name: 'bench edge router',
  dirPrefix: 'bench-edge-',
  start: (dataDir) =>
    // Only these variables: a REDIS_URL or S3 bucket in the caller's shell must not change the run.
    startEdge(
      loadEdgeConfig({
        EDGE_PORT: '0',
        EDGE_HOST: '127.0.0.1',
        GATEWAY_URL: process.env.GATEWAY_URL,
        SERVICE_DOMAIN: 'localhost',
        DATA_DIR: dataDir,
        LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
      }),
    ),
  stop: (edge) => edge.stop(),
  announcement: ({ port }) => ({ port }),
});
