/**
 * The kitchen display: stations, which menu items each prepares, tickets per station with their
 * bump, recall and priority, and the real-time feed of order events for KDS and POS screens.
 *
 * Wiring: `createKitchenService(...)`, then register `kitchenRoutes` under `/v1/commerce`. An
 * order reaches the kitchen through the `sendOrder` flow, which opens its tickets.
 */
import type { FastifyInstance } from 'fastify';
import type { ApplianceDatabase } from '../db/index.ts';
import { kitchenFeedRoutes } from './feed.ts';
import { kitchenRestRoutes } from './routes.ts';
import type { KitchenService } from './service.ts';

export { createEventPoller, type EventPoller, type FeedEvent, kitchenFeedRoutes } from './feed.ts';
export { kitchenRestRoutes } from './routes.ts';
export {
  type BoardTicket,
  createKitchenService,
  type KitchenDeps,
  type KitchenOrders,
  type KitchenService,
  type SentOrder,
  type Ticket,
} from './service.ts';
export type { Station, TicketPriority } from './store.ts';

export interface KitchenRoutesOptions {
  db: ApplianceDatabase;
  kitchen: KitchenService;
  pollIntervalMs?: number | undefined;
}

/** The kitchen's HTTP routes and its WebSocket feed, in one registration. */
export async function kitchenRoutes(app: FastifyInstance, opts: KitchenRoutesOptions) {
  await app.register(kitchenRestRoutes, { kitchen: opts.kitchen });
  await app.register(kitchenFeedRoutes, { db: opts.db, pollIntervalMs: opts.pollIntervalMs });
}
export { tokenFromQuery } from './feed.ts';
