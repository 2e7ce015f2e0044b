/** Chat: workspaces, channels, threads, messages, presence and the chat WebSocket. */
import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import type { TokenService } from '../identity/tokens.ts';
import type { ChatConfig } from './config.ts';

export interface ChatDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: ChatConfig;
  tokens: TokenService;
}

export function createChatService(_deps: ChatDeps) {
  return {
    async createIncidentChannel(
      _tenantId: string,
      _channel: { incident_id: string; name: string; topic: string; member_user_ids: string[] },
    ): Promise<{ id: string }> {
      throw new Error('chat is not built yet');
    },
    async postSystemMessage(_tenantId: string, _channelId: string, _content: string): Promise<void> {},
    broadcastIncident(_tenantId: string, _frame: Record<string, unknown>) {},
    attach(_server: Server) {},
    start() {},
    async close() {},
  };
}

export type ChatService = ReturnType<typeof createChatService>;

export async function chatRoutes(_app: FastifyInstance, _options: { chat: ChatService }) {}
