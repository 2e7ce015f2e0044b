import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../shared/http/errors.ts';

/**
 * Only our own files, and no inline script or style: what an injected string could run has nowhere
 * to come from. Charts and components set styles through the DOM (element.style), which style-src
 * does not govern; Vite emits the CSS as files. 'self' in connect-src covers ws: and wss: to the
 * same host (CSP Level 3), which the live feeds use.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  'cross-origin-opener-policy': 'same-origin',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';

// Vite names its assets by content, so they never change; the page itself must always be fresh.
function cacheHeaders(reply: FastifyReply, path: string) {
  reply.header('cache-control', path.includes(`${sep}assets${sep}`) ? IMMUTABLE : 'no-cache');
}

/** A file the page loads (a script, a style sheet, an image), not one of the app's own pages. */
function looksLikeAsset(path: string) {
  const pathname = path.split('?')[0] ?? '';
  const last = pathname.slice(pathname.lastIndexOf('/') + 1);
  return pathname.includes('/assets/') || last.includes('.');
}

const notBuilt = () =>
  new AppError(
    503,
    'CONSOLE_NOT_BUILT',
    'The fleet console is not built: run `npm run console:build` and restart (npm start does both)',
  );

/**
 * The app routes by path (/console/stores/<id>): a page the router knows but no file holds is the
 * app's page, answered with index.html; a missing asset stays a 404.
 */
function spaFallback(indexFile: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const page = request.method === 'GET' || request.method === 'HEAD';
    if (!page || looksLikeAsset(request.url))
      throw new AppError(404, 'NOT_FOUND', `No route for ${request.method} ${request.url}`);
    // A rebuild empties dist/ for a moment.
    if (!existsSync(indexFile)) throw notBuilt();
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(await readFile(indexFile));
  };
}

/** The built console at /console/ with its app's pages; 503 with what to do when it is not built. */
export async function consoleStaticRoutes(app: FastifyInstance, opts: { distDir: string }) {
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
  });
  app.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect('/console/'));
  const indexFile = join(opts.distDir, 'index.html');
  if (!existsSync(indexFile)) {
    app.get('/console/*', { schema: { hide: true } }, async () => {
      throw notBuilt();
    });
    return;
  }
  await app.register(
    async (scope) => {
      scope.setNotFoundHandler(spaFallback(indexFile));
      await scope.register(fastifyStatic, {
        root: opts.distDir,
        prefix: '/',
        decorateReply: false,
        index: 'index.html',
        setHeaders: cacheHeaders,
      });
    },
    { prefix: '/console' },
  );
}
