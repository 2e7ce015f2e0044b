/**
 * What the consoles watch change live, published on the console feed once the change committed:
 * an alert fired, acknowledged or resolved; a store whose appliance pushed (at most one frame per
 * store every few seconds, since a busy store pushes often); a catalog publication reaching its
 * stores. A frame says what changed; the console reads the rest through the API.
 */
import type { AlertingService } from '../alerting/index.ts';
import type { ConsoleFeed } from '../cockpit/index.ts';
import type { PublicationStep } from '../commerce/index.ts';
import type { SyncService } from '../sync/index.ts';

const STORE_FRAME_MS = 5_000;
const PUBLICATION_FRAME_MS = 1_000;

type Feed = Pick<ConsoleFeed, 'publish' | 'publishThrottled'>;

export function linkConsoleFrames(
  feed: Feed,
  domains: {
    alerting: Pick<AlertingService, 'onFired' | 'onChanged'>;
    sync: Pick<SyncService, 'onPushed'>;
  },
) {
  domains.alerting.onFired(({ tenantId, alert }) =>
    feed.publish(tenantId, { type: 'alert', alert_id: alert.id, status: alert.status }),
  );
  domains.alerting.onChanged(({ tenantId, alert, action }) => {
    // An escalation notifies more people; the alert's state stays as it was.
    if (action === 'escalate') return;
    feed.publish(tenantId, { type: 'alert', alert_id: alert.id, status: alert.status });
  });
  domains.sync.onPushed(({ tenantId, locationId }) =>
    feed.publishThrottled(
      tenantId,
      `store:${tenantId}/${locationId}`,
      { type: 'store', location_id: locationId },
      STORE_FRAME_MS,
    ),
  );
}

/** The publisher's progress as `publication` frames, the last of a burst kept. */
export const publicationFrames = (feed: Feed) => (tenantId: string, step: PublicationStep) =>
  feed.publishThrottled(
    tenantId,
    `publication:${step.id}`,
    { type: 'publication', ...step },
    PUBLICATION_FRAME_MS,
  );
