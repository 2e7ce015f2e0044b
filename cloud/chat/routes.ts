import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { requireAuth } from '../gateway/index.ts';
import * as schemas from './schemas.ts';
import type { ChatService } from './service.ts';

const doc = { tags: ['chat'], security: [{ bearer: [] }] };
const caller = (request: FastifyRequest) => {
  const auth = requireAuth(request);
  return { tenantId: auth.tenantId, userId: auth.userId };
};

/**
 * /api/v1/chat: any authenticated user of the tenant (the API names no role). The WebSocket at
 * /api/v1/chat/ws is served by the service on the same HTTP server (socket.ts).
 */
export async function chatRoutes(app: FastifyInstance, { chat }: { chat: ChatService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const authenticate = app.authenticate();
  const guard = {
    onRequest: authenticate,
    preHandler: async () => chat.requireEnabled(),
  };
  const Channel = Envelope(schemas.ChannelSchema);
  const channelParams = schemas.ChannelParamsSchema;
  // The socket closes with the app, so the HTTP server's close is not held open by chat clients.
  app.addHook('preClose', async () => chat.disconnectAll());

  r.get(
    '/config',
    {
      onRequest: authenticate,
      schema: {
        ...doc,
        summary: 'The WebSocket URL, the limits and the feature flags of chat',
        response: { 200: Envelope(schemas.ChatConfigSchema), ...errorResponses(401) },
      },
    },
    async (request) =>
      envelope(request.id, chat.clientConfig({ host: request.headers.host, protocol: request.protocol })),
  );

  r.post(
    '/channels',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Open a public, private or support channel',
        description:
          'The caller becomes its owner; `member_user_ids` are invited as members. A channel sits in the workspace hierarchy tenant / brand / location / department: a location alone brings its brand.',
        body: schemas.NewChannelSchema,
        response: { 201: Channel, ...errorResponses(400, 401, 503) },
      },
    },
    async (request, reply) => {
      const { tenantId, userId } = caller(request);
      reply.code(201);
      return envelope(request.id, await chat.channels.create(tenantId, userId, request.body));
    },
  );

  r.post(
    '/direct',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The direct channel with one other person, opened on first use',
        description: 'One direct channel per pair: 201 when opened now, 200 when it already existed.',
        body: schemas.DirectChannelSchema,
        response: { 200: Channel, 201: Channel, ...errorResponses(400, 401, 503) },
      },
    },
    async (request, reply) => {
      const { tenantId, userId } = caller(request);
      const result = await chat.channels.direct(tenantId, userId, request.body.user_id);
      reply.code(result.created ? 201 : 200);
      return envelope(request.id, result.channel);
    },
  );

  r.get(
    '/channels',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The channels the caller can see, newest first',
        description: 'Every public channel of the tenant and every channel the caller is a member of.',
        querystring: schemas.ChannelListQuerySchema,
        response: { 200: PageEnvelope(schemas.ChannelSchema), ...errorResponses(400, 401, 503) },
      },
    },
    async (request) => {
      const { tenantId, userId } = caller(request);
      const { type, brand_id, location_id, department, limit, cursor } = request.query;
      const filter = { type, brandId: brand_id, locationId: location_id, department };
      const page = await chat.channels.list(tenantId, userId, filter, { limit, cursor });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.get(
    '/channels/:channel_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One channel',
        description: '404 for a channel the caller may not see (a private one they are not in), as for none.',
        params: channelParams,
        response: { 200: Channel, ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (request) => {
      const { tenantId, userId } = caller(request);
      return envelope(request.id, await chat.channels.get(tenantId, userId, request.params.channel_id));
    },
  );

  r.get(
    '/channels/:channel_id/members',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'A channel’s members, by user id',
        params: channelParams,
        querystring: schemas.MemberListQuerySchema,
        response: { 200: PageEnvelope(schemas.MemberSchema), ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (request) => {
      const { tenantId, userId } = caller(request);
      const { limit, cursor } = request.query;
      const page = await chat.channels.members(tenantId, userId, request.params.channel_id, {
        limit,
        cursor,
      });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.post(
    '/channels/:channel_id/members',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Invite someone, or join a public channel',
        description:
          'Your own user id joins a public channel. Public and incident channels take new members from any member; private and support channels from their owners; a direct channel never changes (409). Only an owner makes owners. 201 when added, 200 when already a member.',
        params: channelParams,
        body: schemas.NewMemberSchema,
        response: {
          200: Envelope(schemas.MemberSchema),
          201: Envelope(schemas.MemberSchema),
          ...errorResponses(400, 401, 403, 404, 409, 503),
        },
      },
    },
    async (request, reply) => {
      const { tenantId, userId } = caller(request);
      const result = await chat.channels.invite(tenantId, userId, request.params.channel_id, request.body);
      reply.code(result.created ? 201 : 200);
      return envelope(request.id, result.member);
    },
  );

  r.delete(
    '/channels/:channel_id/members/:user_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Leave (your own user id) or remove a member (owners)',
        description: 'When the last owner leaves, the member who joined first becomes owner.',
        params: schemas.MemberParamsSchema,
        response: { 204: { type: 'null' }, ...errorResponses(400, 401, 403, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const { tenantId, userId } = caller(request);
      await chat.channels.remove(tenantId, userId, request.params.channel_id, request.params.user_id);
      reply.code(204);
    },
  );

  r.post(
    '/channels/:channel_id/messages',
    {
      ...guard,
      // Room for the largest content JSON-escaped (up to 6 characters a byte) and the attachments.
      bodyLimit: chat.maxMessageBytes * 6 + 64 * 1024,
      schema: {
        ...doc,
        summary: 'Send a message',
        description:
          'content: up to CHAT_MAX_MESSAGE_SIZE (65,536) bytes of UTF-8; larger is refused with 413 MESSAGE_TOO_LARGE naming both sizes. thread_id: a top-level message of this channel. Writing in a public channel joins it. Every open connection of every member receives a `message` frame.',
        params: channelParams,
        body: schemas.NewMessageSchema,
        response: {
          201: Envelope(schemas.MessageSchema),
          ...errorResponses(400, 401, 404, 413, 503),
        },
      },
    },
    async (request, reply) => {
      const { tenantId, userId } = caller(request);
      const message = await chat.postMessage(tenantId, userId, request.params.channel_id, request.body);
      reply.code(201);
      return envelope(request.id, message);
    },
  );

  r.get(
    '/channels/:channel_id/messages',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'A channel’s messages, newest first',
        description:
          'Top-level messages (each with its reply_count), or with thread_id the replies of that thread.',
        params: channelParams,
        querystring: schemas.MessageListQuerySchema,
        response: { 200: PageEnvelope(schemas.MessageSchema), ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (request) => {
      const { tenantId, userId } = caller(request);
      const { thread_id, limit, cursor } = request.query;
      const page = await chat.listMessages(tenantId, userId, request.params.channel_id, {
        limit,
        cursor,
        threadId: thread_id,
      });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );
}
