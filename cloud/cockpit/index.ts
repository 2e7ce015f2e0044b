/** The operations console: approvals queue, agent settings, AI metrics and the live feed. */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import type { CockpitConfig } from './config.ts';
import type { ConsoleFeed } from './feed.ts';

export { type ConsoleFeed, type ConsoleFrame, createConsoleFeed } from './feed.ts';

export interface CockpitDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: CockpitConfig;
  feed: ConsoleFeed;
}

export function createCockpitService(deps: CockpitDeps) {
  return { feed: deps.feed };
}

export type CockpitService = ReturnType<typeof createCockpitService>;

export async function cockpitRoutes(_app: FastifyInstance, _options: { cockpit: CockpitService }) {}
