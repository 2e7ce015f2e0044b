import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { VOICE_KEYS, type VoiceAnswer, type VoiceKey } from './voice.ts';

const KeypressParams = Type.Object({ notification_id: Type.String({ format: 'uuid' }) });
const KeypressBody = Type.Object(
  {
    digit: Type.Union(
      VOICE_KEYS.map((key) => Type.Literal(key)),
      { description: '1 acknowledge, 2 escalate, 3 details' },
    ),
    token: Type.String({ minLength: 1, maxLength: 200, description: 'the `callback.token` of the call' }),
  },
  { additionalProperties: false },
);
const KeypressAnswer = Type.Object({
  alert_id: Type.String(),
  action: Type.Union([
    Type.Literal('acknowledge'),
    Type.Literal('escalate'),
    Type.Literal('details'),
    Type.Literal('none'),
  ]),
  done: Type.Boolean({ description: 'whether the key changed the alert (details: always true)' }),
  say: Type.String({ description: 'what the call reads out next' }),
});

/**
 * POST /api/v1/alerting/voice/{notification_id}/keypress: the voice provider's callback with the key
 * a responder pressed. No bearer token (the provider has none): the per-call `token` is the
 * credential (cloud/notify/voice-callback.ts).
 */
export async function voiceRoutes(
  app: FastifyInstance,
  { keypress }: { keypress: (id: string, token: string, key: VoiceKey) => Promise<VoiceAnswer> },
) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/alerting/voice/:notification_id/keypress',
    {
      schema: {
        tags: ['alerting'],
        summary: 'The key a responder pressed on a voice call (provider callback)',
        description:
          '1 acknowledges the alert, 2 escalates it now, 3 answers its details. 404 VOICE_CALL_NOT_FOUND for an unknown call or a wrong token alike.',
        params: KeypressParams,
        body: KeypressBody,
        response: { 200: Envelope(KeypressAnswer), ...errorResponses(400, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await keypress(request.params.notification_id, request.body.token, request.body.digit),
      ),
  );
}
