/**
 * Rollout events: appended to the event log in the transaction of the change they report (so an
 * event exists exactly when its change does), and shown on the operations console once committed.
 */
import type { RolloutEventData, RolloutEventType } from '../../shared/events.ts';
import type { Db } from '../db/index.ts';
import type { DomainEventRow } from '../events/index.ts';
import type { RolloutDeps } from './rollouts-context.ts';
import type { RolloutRow } from './rollouts-tables.ts';

type Base = 'rollout_id' | 'release_id' | 'version';
export type EventOf<T extends RolloutEventType> = Omit<RolloutEventData[T], Base>;

export type Emit = <T extends RolloutEventType>(
  type: T,
  rollout: Pick<RolloutRow, 'id' | 'tenant_id' | 'release_id' | 'version'>,
  data: EventOf<T>,
  locationId?: string,
) => Promise<void>;

/**
 * Runs `work` in one transaction with an `emit` that writes events in it; the console hears of
 * them after the commit, never of a change that rolled back.
 */
export async function withEvents<T>(
  deps: Pick<RolloutDeps, 'store' | 'clock' | 'newId' | 'events' | 'feed'>,
  work: (trx: Db, emit: Emit) => Promise<T>,
): Promise<T> {
  const written: DomainEventRow[] = [];
  const result = await deps.store.db.transaction().execute((trx) => {
    written.length = 0;
    const emit: Emit = async (type, rollout, data, locationId) => {
      const at = deps.clock.now().toISOString();
      const row: DomainEventRow = {
        id: deps.newId(),
        tenant_id: rollout.tenant_id,
        location_id: locationId ?? null,
        type,
        occurred_at: at,
        received_at: at,
        data: JSON.stringify({
          rollout_id: rollout.id,
          release_id: rollout.release_id,
          version: rollout.version,
          ...data,
        }),
      };
      await deps.events.append(trx, [row]);
      written.push(row);
    };
    return work(trx, emit);
  });
  for (const row of written)
    deps.feed?.publish(row.tenant_id, {
      type: row.type,
      event_id: row.id,
      location_id: row.location_id,
      data: JSON.parse(row.data) as Record<string, unknown>,
    });
  return result;
}
