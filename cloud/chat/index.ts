/**
 * Chat: channels in the workspace hierarchy (tenant / brand / location / department), members,
 * threads, messages, retention, presence and the chat WebSocket at /api/v1/chat/ws. Owns the
 * chat_channels, chat_members and chat_messages tables. The incident flow opens incident channels
 * and posts to them through the service (createIncidentChannel, postSystemMessage,
 * broadcastIncident); it never touches the tables.
 */
export { CHAT_SETTINGS, type ChatConfig, loadChatConfig } from './config.ts';
export { chatRoutes } from './routes.ts';
export {
  type ChatDeps,
  type ChatService,
  createChatService,
  type IncidentChannelRequest,
} from './service.ts';
export { CHAT_WS_PATH, CLOSE_AUTH_TIMEOUT, CLOSE_UNAUTHORIZED } from './socket.ts';
export type { ChatTables } from './tables.ts';
export { CHANNEL_TYPES, type ChannelType } from './tables.ts';
export type { ChatChannel, ChatMessage } from './views.ts';
