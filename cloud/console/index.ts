/**
 * The fleet console: the browser app built from cloud/console/web into its dist/, served at
 * /console/ with the headers that keep it to its own origin. What it shows, it reads through the
 * other modules' own routes with the signed-in user's token; this module owns only its delivery.
 */
import type { FastifyInstance } from 'fastify';
import { consoleStaticRoutes } from './static.ts';

export { CONSOLE_CSP } from './static.ts';

export interface ConsoleOptions {
  /** The built app (`npm run console:build`). */
  distDir: string;
}

export async function consoleRoutes(app: FastifyInstance, opts: ConsoleOptions) {
  await app.register(consoleStaticRoutes, { distDir: opts.distDir });
}
