/** The channels, registered explicitly: one adapter per channel name. */

import type { ConsoleFeed } from '../../cockpit/index.ts';
import { createOutbound } from '../../webhooks/index.ts';
import type { NotifyConfig } from '../config.ts';
import type { NotificationChannel } from '../types.ts';
import type { ChannelAdapter } from './channel.ts';
import { createConsoleChannel } from './console.ts';
import { createEmailChannel } from './email.ts';
import { createPushChannel } from './push.ts';
import { createSmsChannel } from './sms.ts';
import { createTeamChatChannel } from './team-chat.ts';
import { createVoiceChannel } from './voice.ts';

export type ChannelRegistry = Record<NotificationChannel, ChannelAdapter>;

export function createChannelRegistry(
  config: NotifyConfig,
  deps: { fetch: typeof fetch; consoleFeed: ConsoleFeed; now: () => Date },
): ChannelRegistry {
  const provider = { account: config.providerAccount, token: config.providerToken, fetch: deps.fetch };
  return {
    voice: createVoiceChannel({
      ...provider,
      url: config.voiceUrl,
      from: config.smsFrom,
      callbackBase: config.voiceCallbackBase,
      callbackSecret: config.callbackSecret,
    }),
    sms: createSmsChannel({ ...provider, url: config.smsUrl, from: config.smsFrom }),
    email: createEmailChannel({
      smtpUrl: config.smtpUrl,
      from: config.emailFrom,
      timeoutMs: config.sendTimeoutMs,
    }),
    team_chat: createTeamChatChannel({
      outbound: createOutbound({ allowPrivate: config.allowPrivateUrls }),
      allowPrivate: config.allowPrivateUrls,
      timeoutMs: config.sendTimeoutMs,
    }),
    push: createPushChannel({ ...provider, url: config.pushUrl }),
    console: createConsoleChannel(deps.consoleFeed, deps.now),
  };
}
