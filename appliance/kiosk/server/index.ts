/**
 * The kiosk's side of the local API: the built operator UI at /kiosk/, and the one WebSocket feed
 * its screens live on. The screens read and act through the domain modules' own routes; what this
 * module owns is putting together, from those modules' services, what changes without an event.
 */
import type { FastifyInstance } from 'fastify';
import type { ActionBoard } from '../../actions/index.ts';
import type { StaffAuth } from '../../auth/index.ts';
import type { EventPoller } from '../../kitchen/index.ts';
import type { SyncStatus } from '../../sync/index.ts';
import { kioskFeedRoutes } from './feed.ts';
import { kioskStaticRoutes } from './static.ts';
import { createTopicWatcher, type TopicSources } from './topics.ts';

export { SESSION_ENDED } from './feed.ts';
export { KIOSK_CSP } from './static.ts';

/** A backlog this deep is worth a progress bar while it drains (an outage's worth of sales). */
const BIG_SYNC = 200;

/**
 * Turns a long drain of the outbox into an action on the board, its progress the share of the
 * backlog the cloud has taken since the drain began.
 */
export function createSyncDrainWatch(board: ActionBoard, newId: () => string) {
  let drain: { id: string; peak: number } | undefined;
  return (status: SyncStatus) => {
    if (!drain && status.online && status.queue_depth >= BIG_SYNC) {
      drain = { id: newId(), peak: status.queue_depth };
      board.start(drain.id, 'sync', `Sending ${status.queue_depth} changes to the cloud`);
    }
    if (!drain) return;
    drain.peak = Math.max(drain.peak, status.queue_depth);
    if (status.queue_depth === 0) {
      board.finish(drain.id, 'succeeded', `${drain.peak} changes sent`);
      drain = undefined;
    } else if (!status.online) {
      board.finish(drain.id, 'failed', 'the cloud went away; sending resumes when it is back');
      drain = undefined;
    } else board.progress(drain.id, 1 - status.queue_depth / drain.peak, `${status.queue_depth} left`);
  };
}

export interface KioskOptions {
  distDir: string;
  auth: StaffAuth;
  events: EventPoller;
  sources: TopicSources;
  /** Tests shorten these. */
  topicIntervalMs?: number;
  sessionCheckMs?: number;
}

export async function kioskRoutes(app: FastifyInstance, opts: KioskOptions) {
  const topics = createTopicWatcher(opts.sources, opts.topicIntervalMs, (error) =>
    app.log.warn({ err: error }, 'kiosk: a state topic could not be read'),
  );
  app.addHook('onClose', async () => {
    topics.close();
    opts.events.close();
  });
  await app.register(kioskStaticRoutes, { distDir: opts.distDir });
  await app.register(kioskFeedRoutes, {
    prefix: '/v1/kiosk',
    auth: opts.auth,
    events: opts.events,
    topics,
    ...(opts.sessionCheckMs !== undefined ? { sessionCheckMs: opts.sessionCheckMs } : {}),
  });
}
