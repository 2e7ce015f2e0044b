/**
 * Voice calls through the provider's HTTP API: POST NOTIFY_VOICE_URL with the prompt to read and the
 * key menu (1 acknowledge, 2 escalate, 3 details) the provider gathers after it, and where to
 * post the key pressed (voice-callback.ts; alerting's keypress route acts on it).
 */
import { VOICE_MENU, voicePrompt } from '../templates.ts';
import { callbackToken, voiceKeypressPath } from '../voice-callback.ts';
import { type ChannelAdapter, skipped } from './channel.ts';
import { type ProviderOptions, postToProvider } from './provider-http.ts';

export function createVoiceChannel(
  options: ProviderOptions & {
    url: string | undefined;
    from: string | undefined;
    callbackBase: string | undefined;
    callbackSecret: string | undefined;
  },
): ChannelAdapter {
  return {
    channel: 'voice',
    async send(notification, context) {
      if (!options.url) return skipped('the voice channel is not configured (NOTIFY_VOICE_URL)');
      const to = notification.recipient?.phone;
      if (!to) return skipped('the recipient has no phone number');
      const body = {
        to,
        from: options.from ?? null,
        prompt: voicePrompt(notification.subject, notification.severity),
        details: notification.text,
        gather: { digits: VOICE_MENU },
        alert_id: notification.alertId,
        reference: notification.id,
        // The provider posts {digit, token} here once the responder pressed a key.
        ...(options.callbackBase && options.callbackSecret
          ? {
              callback: {
                url: `${options.callbackBase}${voiceKeypressPath(notification.id)}`,
                token: callbackToken(options.callbackSecret, notification.id),
              },
            }
          : {}),
      };
      return postToProvider(options, options.url, notification.id, body, context.signal);
    },
  };
}
