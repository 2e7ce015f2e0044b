import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import type { DomainEventRow, EventLog } from '../events/index.ts';
import type { LocationRow } from '../tenancy/index.ts';

/**
 * A fleet admin taking a store in or out of service in the cloud is a `location.status_changed`
 * event, like a store changing its own status on the appliance: webhooks and alerting see both.
 */
export function locationEvents(deps: { events: EventLog; clock: Clock; newId: IdGenerator }) {
  return async (trx: Db, before: LocationRow, after: LocationRow) => {
    if (before.status === after.status) return;
    const at = deps.clock.now().toISOString();
    const event: DomainEventRow = {
      id: deps.newId(),
      tenant_id: after.tenant_id,
      location_id: after.id,
      type: 'location.status_changed',
      occurred_at: at,
      received_at: at,
      data: JSON.stringify({
        location_id: after.id,
        status: after.status,
        previous_status: before.status,
        source: 'cloud',
        updated_at: after.updated_at,
      }),
    };
    await deps.events.append(trx, [event]);
  };
}
