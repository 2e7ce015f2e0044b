import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHAT_CONFIG, loadChatConfig } from '../../../cloud/chat/config.ts';
import { type ChatCloud, Client, chatCloud, failed, ok } from './chat-cloud.ts';

describe('chat configuration', () => {
  it('defaults to the spec’s limits and flags', () => {
    expect(loadChatConfig({})).toEqual(DEFAULT_CHAT_CONFIG);
    expect(DEFAULT_CHAT_CONFIG).toMatchObject({
      maxMessageBytes: 65_536,
      retentionDays: 365,
      incidentAutoResolveHours: 24,
      authTimeoutMs: 5000,
      flags: { enabled: true, voice_transcription: true, ai_translation: true, external_bridges: false },
    });
  });

  it('reads every variable and names the one that is wrong', () => {
    const config = loadChatConfig({
      CHAT_ENABLED: 'false',
      CHAT_EXTERNAL_BRIDGES: '1',
      CHAT_WEBSOCKET_URL: 'wss://chat.example.com/ws',
      CHAT_MAX_MESSAGE_SIZE: '1024',
      CHAT_MESSAGE_RETENTION_DAYS: '30',
      CHAT_WORKER: 'false',
    });
    expect(config).toMatchObject({
      flags: { enabled: false, external_bridges: true },
      websocketUrl: 'wss://chat.example.com/ws',
      maxMessageBytes: 1024,
      retentionDays: 30,
      runWorker: false,
    });
    expect(() => loadChatConfig({ CHAT_MAX_MESSAGE_SIZE: 'big' })).toThrow(/CHAT_MAX_MESSAGE_SIZE/);
    expect(() => loadChatConfig({ CHAT_ENABLED: 'yes' })).toThrow(/CHAT_ENABLED/);
    expect(() => loadChatConfig({ CHAT_WEBSOCKET_URL: 'http://x' })).toThrow(/CHAT_WEBSOCKET_URL/);
  });
});

describe('chat switched off (CHAT_ENABLED=false)', () => {
  let c: ChatCloud;
  beforeAll(async () => {
    c = await chatCloud('sqlite', {
      flags: { ...DEFAULT_CHAT_CONFIG.flags, enabled: false },
      websocketUrl: 'wss://chat.example.com/api/v1/chat/ws',
    });
  });
  afterAll(() => c.cloud.close());

  it('still tells clients so, answers 503 elsewhere and refuses the WebSocket', async () => {
    const config = ok(await c.ann.call('GET', '/config'));
    expect(config.feature_flags['chat.enabled']).toBe(false);
    expect(config.websocket_url).toBe('wss://chat.example.com/api/v1/chat/ws');
    failed(await c.ann.call('GET', '/channels'), 503, 'CHAT_DISABLED');
    failed(await c.ann.call('POST', '/channels', { type: 'public', name: 'x' }), 503, 'CHAT_DISABLED');
    const ws = new Client(c.wsUrl);
    await expect(ws.opened).rejects.toThrow(/503/);
  });
});
