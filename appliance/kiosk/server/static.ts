import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../../shared/http/errors.ts';

/**
 * Nothing but the appliance itself: the kiosk must keep working with the internet gone, and a
 * page that cannot reach anything else cannot leak the store's data to it either.
 */
export const KIOSK_CSP = [
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "media-src 'self' data: blob:",
  "font-src 'self' data:",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

function kioskHeaders(reply: FastifyReply, path: string) {
  reply.header('content-security-policy', KIOSK_CSP);
  reply.header('x-content-type-options', 'nosniff');
  // Vite names its assets by content, so they never change; the page itself must always be fresh.
  const hashed = path.includes(`${sep}assets${sep}`);
  reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
}

/** The built operator UI at /kiosk/ (and / leads there); 503 with what to do when it is not built. */
export async function kioskStaticRoutes(app: FastifyInstance, opts: { distDir: string }) {
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/kiosk/'));
  app.get('/kiosk', { schema: { hide: true } }, (_request, reply) => reply.redirect('/kiosk/'));
  if (!existsSync(join(opts.distDir, 'index.html'))) {
    app.get('/kiosk/*', { schema: { hide: true } }, async () => {
      throw new AppError(
        503,
        'KIOSK_NOT_BUILT',
        'The kiosk UI is not built: run `npm run kiosk:build` (npm start does it for you)',
      );
    });
    return;
  }
  await app.register(fastifyStatic, {
    root: opts.distDir,
    prefix: '/kiosk/',
    decorateReply: false,
    index: 'index.html',
    setHeaders: kioskHeaders,
  });
}
