/**
 * The benchmark's baseline: a bare Fastify route answering a profile-sized JSON body (about the
 * size of GET /v1/auth/me's), so the ratio measures what the cloud adds on top of Fastify itself.
 * Prints `{"port":N}` once listening; stops on SIGTERM or SIGINT.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';

const profile = {
  data: {
    id: '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    tenant_id: '0199a1b2-c3d4-7e5f-8a9b-5b4a3f2e1d0c',
    email: 'bench@bench.test',
    username: null,
    first_name: null,
    last_name: null,
    display_name: null,
    email_verified: false,
    roles: ['manager'],
    status: 'active',
  },
};

const app = Fastify({ logger: false });
app.get('/bare', async () => ({
  ...profile,
  meta: { request_id: randomUUID(), timestamp: new Date().toISOString() },
}));

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ port })}\n`);

const shutdown = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
// The bench closes our stdin by dying: do not outlive it.
process.stdin.once('end', shutdown).resume();
