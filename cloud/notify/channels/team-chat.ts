/**
 * Team chat by incoming webhook (Slack-compatible `{text}`) to the URL the tenant configured. The
 * tenant chooses that URL, so it goes through the webhook sender's address guard: private and
 * loopback targets are refused unless NOTIFY_ALLOW_PRIVATE_URLS is set.
 */

import type { Outbound } from '../../webhooks/index.ts';
import { checkWebhookUrl } from '../../webhooks/index.ts';
import { messageText } from '../templates.ts';
import { ANSWER_MAX, byStatus, type ChannelAdapter, skipped } from './channel.ts';

export function createTeamChatChannel(options: {
  outbound: Outbound;
  allowPrivate: boolean;
  timeoutMs: number;
}): ChannelAdapter {
  return {
    channel: 'team_chat',
    async send(notification, context) {
      const url = context.teamChatWebhookUrl;
      if (!url) return skipped('the tenant has no team chat webhook URL (notification-settings)');
      const check = checkWebhookUrl(url, { allowPrivate: options.allowPrivate });
      if (!check.ok) return { outcome: 'failed', error: `the team chat webhook URL ${check.reason}` };
      const text = messageText(notification.subject, notification.text, notification.severity, 4000);
      const result = await options.outbound.send({
        url,
        headers: { 'content-type': 'application/json', 'idempotency-key': notification.id },
        body: JSON.stringify({ text }),
        timeoutMs: options.timeoutMs,
        pool: `notify-${notification.tenantId}`,
      });
      if (result.kind === 'response') return byStatus(result.status, result.body.slice(0, ANSWER_MAX));
      const final = result.errorClass === 'blocked_address';
      return { outcome: final ? 'failed' : 'retry', error: `${result.errorClass}: ${result.message}` };
    },
    close: () => options.outbound.close(),
  };
}
