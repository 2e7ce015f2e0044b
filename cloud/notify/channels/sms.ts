/** SMS through the provider's HTTP API: POST NOTIFY_SMS_URL `{to, from, text, reference}`. */
import { smsText } from '../templates.ts';
import { type ChannelAdapter, skipped } from './channel.ts';
import { type ProviderOptions, postToProvider } from './provider-http.ts';

export function createSmsChannel(
  options: ProviderOptions & { url: string | undefined; from: string | undefined },
): ChannelAdapter {
  return {
    channel: 'sms',
    async send(notification, context) {
      if (!options.url) return skipped('the sms channel is not configured (NOTIFY_SMS_URL)');
      const to = notification.recipient?.phone;
      if (!to) return skipped('the recipient has no phone number');
      const body = {
        to,
        from: options.from ?? null,
        text: smsText(notification.subject, notification.text, notification.severity),
        reference: notification.id,
      };
      return postToProvider(options, options.url, notification.id, body, context.signal);
    },
  };
}
