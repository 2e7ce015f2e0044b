/**
 * The cloud's way to make a store sync at once: a manager's trigger is stored on the store's sync
 * row and wakes the appliance's open wait request (long polling), on this replica at once and on
 * another one within a poll.
 */
import { EventEmitter } from 'node:events';
import type { Clock } from '../../shared/clock.ts';
import type { QueueState } from '../../shared/sync/protocol.ts';
import type { Db } from '../db/index.ts';
import type { ApplianceIdentity } from './appliances.ts';
import type { Scope, SyncStore } from './store.ts';
import type { SyncLocationRow } from './tables.ts';

/** How often an open wait looks for a trigger another replica stored (this one's wake it at once). */
const TRIGGER_POLL_MS = 2000;

/** The columns an appliance's queue report sets; a report it left out changes nothing. */
export function queueReport(queue: Partial<QueueState>): Partial<SyncLocationRow> {
  if (queue.queue_depth === undefined) return {};
  return { queue_depth: queue.queue_depth, oldest_pending_at: queue.oldest_pending_at ?? null };
}

export function createTriggerChannel(deps: {
  queries: SyncStore;
  db: Db;
  clock: Clock;
  now(): string;
  ensureLocation(scope: Scope): Promise<void>;
  onlineWindowSeconds: number;
}) {
  const { queries, db, clock, now, ensureLocation } = deps;
  const triggers = new EventEmitter().setMaxListeners(0);
  const closing = new AbortController();
  return {
    /** Asks the store's appliance to sync now; it hears it on its open wait request. */
    async trigger(tenantId: string, locationId: string, priority: string) {
      const scope = { tenantId, locationId };
      await ensureLocation(scope);
      const at = now();
      await queries.updateLocation(db, scope, { trigger_requested_at: at, trigger_priority: priority });
      triggers.emit(`${tenantId}/${locationId}`);
      triggers.emit('trigger', tenantId, locationId, priority);
      const location = await queries.location(db, scope);
      const seenAt = location?.last_seen_at ? Date.parse(location.last_seen_at) : 0;
      return {
        location_id: locationId,
        priority,
        requested_at: at,
        delivered: clock.now().getTime() - seenAt <= deps.onlineWindowSeconds * 1000,
      };
    },

    /**
     * Wakes the store's open wait for a trigger already stored (head office's edit stores one in
     * its own transaction, and wakes the wait once that committed).
     */
    wake(tenantId: string, locationId: string) {
      triggers.emit(`${tenantId}/${locationId}`);
    },

    /** Told of every trigger made on this replica (the fleet link also carries it as a command). */
    onTrigger(listener: (tenantId: string, locationId: string, priority: string) => void) {
      triggers.on('trigger', listener);
      return () => void triggers.off('trigger', listener);
    },

    /**
     * The appliance's open channel: answers as soon as a trigger is pending (at once if one
     * already is), else after `timeoutMs`. Another replica's trigger is noticed by polling.
     */
    async waitForTrigger(
      appliance: ApplianceIdentity,
      timeoutMs: number,
      signal?: AbortSignal,
      queue: Partial<QueueState> = {},
    ) {
      const key = `${appliance.tenantId}/${appliance.locationId}`;
      await queries.updateLocation(db, appliance, { last_seen_at: now(), ...queueReport(queue) });
      const take = async () => {
        const location = await queries.location(db, appliance);
        if (!location?.trigger_requested_at) return undefined;
        await queries.updateLocation(db, appliance, { trigger_requested_at: null, trigger_priority: null });
        return { triggered: true, priority: location.trigger_priority ?? 'normal' };
      };
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const taken = await take();
        if (taken) return taken;
        const left = deadline - Date.now();
        if (left <= 0 || signal?.aborted || closing.signal.aborted)
          return { triggered: false, priority: null };
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            triggers.off(key, done);
            signal?.removeEventListener('abort', done);
            closing.signal.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, Math.min(left, TRIGGER_POLL_MS));
          triggers.on(key, done);
          signal?.addEventListener('abort', done);
          closing.signal.addEventListener('abort', done);
        });
      }
    },

    /** Answers every open wait at once, so a shutting-down replica does not hold them to the end. */
    close() {
      closing.abort();
    },
  };
}
