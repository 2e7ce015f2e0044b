/** Push through the provider's HTTP API: POST NOTIFY_PUSH_URL to the recipient's push_token. */
import { labelled } from '../templates.ts';
import { type ChannelAdapter, skipped } from './channel.ts';
import { type ProviderOptions, postToProvider } from './provider-http.ts';

export function createPushChannel(options: ProviderOptions & { url: string | undefined }): ChannelAdapter {
  return {
    channel: 'push',
    async send(notification, context) {
      if (!options.url) return skipped('the push channel is not configured (NOTIFY_PUSH_URL)');
      const token = notification.recipient?.push_token;
      if (!token) return skipped('the recipient has no push token');
      const body = {
        token,
        title: labelled(notification.subject, notification.severity),
        body: notification.text,
        data: {
          notification_id: notification.id,
          alert_id: notification.alertId,
          severity: notification.severity,
        },
        reference: notification.id,
      };
      return postToProvider(options, options.url, notification.id, body, context.signal);
    },
  };
}
