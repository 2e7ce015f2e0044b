import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { DEVICE_ADMIN_ROLES } from '../devices/index.ts';
import { requireAuth } from '../gateway/index.ts';
import { CHUNK_TYPES, declaredLength, rawBody } from './http.ts';
import * as schemas from './schemas.ts';
import type { ReleaseService } from './service.ts';
import type { Upload } from './views.ts';

const doc = { tags: ['releases'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;

/** tus's headers beside the body, for clients that read them instead. */
const uploadHeaders = (reply: FastifyReply, upload: Pick<Upload, 'offset' | 'size'>) =>
  reply.headers({
    'upload-offset': String(upload.offset),
    'upload-length': String(upload.size),
    'cache-control': 'no-store',
  });

const PROTOCOL = `A resumable upload, for archives too large for one request over a bad link:
1. \`POST /releases/uploads\` with the archive's \`size\` (and its \`sha256\`, checked at the end): 201 with the upload's \`id\`, \`offset\` 0 and \`expires_at\` (24 hours; then its bytes are removed).
2. \`PATCH /releases/uploads/{id}\` with \`Upload-Offset: <offset>\`, Content-Type \`application/offset+octet-stream\` (or \`application/octet-stream\`) and the next chunk as the raw body, any length: 200 with the new \`offset\`. A chunk cut off midway keeps what arrived.
3. When the answer is lost, or a chunk is refused with 409 UPLOAD_OFFSET_MISMATCH (its details and the \`Upload-Offset\` header give the server's offset), \`GET /releases/uploads/{id}\` and continue from its \`offset\`. 409 UPLOAD_BUSY: the earlier request is still writing; retry after a few seconds.
4. The chunk that reaches \`size\` makes the release: 201 with the release, after the checks of the one-shot upload (on refusal the upload is \`failed\` with its \`error\`, and its bytes removed). An upload whose last answer was lost shows \`completed\` and \`release_id\`; an empty PATCH at \`offset\` = \`size\` completes one left whole but unchecked.`;

/** /v1/mdm/releases/uploads: resumable uploads of release archives. */
export async function uploadRoutes(
  app: FastifyInstance,
  { releases, maxBytes }: { releases: ReleaseService; maxBytes: number },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const admins = { onRequest: app.authenticate(DEVICE_ADMIN_ROLES) };
  const Upload = Envelope(schemas.UploadSchema);
  const params = schemas.UploadParamsSchema;

  r.post(
    '/releases/uploads',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Start a resumable upload of a release archive',
        description: `${PROTOCOL}\n\nAt most ${maxBytes} bytes (413 RELEASE_TOO_LARGE).`,
        body: schemas.NewUploadSchema,
        response: { 201: Upload, ...errorResponses(400, 401, 403, 413) },
      },
    },
    async (request, reply) => {
      const { userId, tenantId } = requireAuth(request);
      const upload = await releases.uploads.create(tenantId, userId, request.body);
      uploadHeaders(reply, upload)
        .code(201)
        .header('location', `${app.prefix}/releases/uploads/${upload.id}`);
      return envelope(request.id, upload);
    },
  );

  r.get(
    '/releases/uploads/:upload_id',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Where a resumable upload stands: its offset, state and, once completed, its release',
        params,
        response: { 200: Upload, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const upload = await releases.uploads.status(tenant(request), request.params.upload_id);
      uploadHeaders(reply, upload);
      return envelope(request.id, upload);
    },
  );

  r.patch(
    '/releases/uploads/:upload_id',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Append the next chunk at the upload’s offset',
        description: `See \`POST /releases/uploads\`. 200 with the upload while bytes are missing; 201 with the release once whole. 409 UPLOAD_OFFSET_MISMATCH (the server's offset in \`Upload-Offset\`), 409 UPLOAD_BUSY, 409 UPLOAD_NOT_OPEN (completed or failed), 410 UPLOAD_EXPIRED, 413 UPLOAD_EXCEEDS_SIZE (the chunk runs past \`size\`; nothing of it is kept), 400 UPLOAD_INTERRUPTED (the chunk was cut off: what arrived is kept).`,
        consumes: CHUNK_TYPES,
        params,
        headers: schemas.ChunkHeadersSchema,
        body: Type.Unsafe<unknown>({ description: 'the chunk’s bytes' }),
        response: {
          200: Upload,
          201: Envelope(schemas.ReleaseSchema),
          ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const offset = Number(request.headers['upload-offset']);
      const body = rawBody(request, CHUNK_TYPES);
      const outcome = await releases.uploads.append(
        tenant(request),
        request.params.upload_id,
        offset,
        body,
        declaredLength(request),
      );
      if (outcome.release) {
        uploadHeaders(reply, { offset: outcome.release.size, size: outcome.release.size }).code(201);
        return envelope(request.id, outcome.release);
      }
      uploadHeaders(reply, outcome.upload);
      return envelope(request.id, outcome.upload);
    },
  );
}
