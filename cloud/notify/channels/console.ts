/** The operations console's live feed: published in-process, so it is delivered on the spot. */
import type { ConsoleFeed } from '../../cockpit/index.ts';
import type { ChannelAdapter } from './channel.ts';

export function createConsoleChannel(feed: ConsoleFeed, now: () => Date): ChannelAdapter {
  return {
    channel: 'console',
    async send(notification) {
      feed.publish(notification.tenantId, {
        type: 'alert.notification',
        notification_id: notification.id,
        alert_id: notification.alertId,
        severity: notification.severity,
        subject: notification.subject,
        text: notification.text,
        at: now().toISOString(),
      });
      return { outcome: 'delivered' };
    },
  };
}
