import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { DEVICE_ADMIN_ROLES, DEVICE_READER_ROLES } from '../devices/index.ts';
import { requireAuth } from '../gateway/index.ts';
import { invalidDownloadToken } from './errors.ts';
import { ARCHIVE_TYPES, declaredLength, rawBody, sendArtifact } from './http.ts';
import * as schemas from './schemas.ts';
import type { ReleaseService } from './service.ts';

const doc = { tags: ['releases'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;

/** /v1/mdm/releases: a tenant's releases, the one-shot upload, and the artifact's bytes. */
export async function releaseRoutes(
  app: FastifyInstance,
  { releases, maxBytes }: { releases: ReleaseService; maxBytes: number },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const admins = { onRequest: app.authenticate(DEVICE_ADMIN_ROLES) };
  const readers = { onRequest: app.authenticate(DEVICE_READER_ROLES) };
  const params = schemas.ReleaseParamsSchema;
  const Release = Envelope(schemas.ReleaseSchema);

  r.post(
    '/releases',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Upload a release archive in one request (the .tar.gz as the raw body)',
        description: `Content-Type \`application/gzip\` or \`application/octet-stream\`. Streamed to storage and checked as it arrives: at most ${maxBytes} bytes (413 RELEASE_TOO_LARGE), gzip and a readable tar with a \`release.json\` at its root naming a plain version (422 RELEASE_ARCHIVE_INVALID, RELEASE_JSON_INVALID), the SHA-256 given in \`sha256\` (422 SHA256_MISMATCH). The version is the release's: one the tenant has is 409 RELEASE_EXISTS. Nothing is kept from a refused upload. Over a bad link use the resumable upload (\`POST /releases/uploads\`).`,
        consumes: ARCHIVE_TYPES,
        querystring: schemas.OneShotQuerySchema,
        body: Type.Unsafe<unknown>({ description: 'the release archive’s bytes' }),
        response: { 201: Release, ...errorResponses(400, 401, 403, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const body = rawBody(request, ARCHIVE_TYPES);
      const input = { declaredLength: declaredLength(request), ...request.query };
      const release = await releases.upload(tenant(request), requireAuth(request).userId, body, input);
      reply.code(201);
      return envelope(request.id, release);
    },
  );

  r.get(
    '/releases',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'The tenant’s releases, newest first',
        querystring: schemas.ReleaseListQuerySchema,
        response: { 200: PageEnvelope(schemas.ReleaseSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { state, limit, cursor } = request.query;
      const page = await releases.list(tenant(request), { state }, { limit, cursor });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.get(
    '/releases/:release_id',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'One release',
        params,
        response: { 200: Release, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await releases.get(tenant(request), request.params.release_id)),
  );

  r.post(
    '/releases/:release_id/retire',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Retire a release: it starts no new rollouts (again: no change)',
        description:
          'Its artifact stays downloadable, so appliances already sent its manifest finish their update.',
        params,
        response: { 200: Release, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await releases.retire(tenant(request), request.params.release_id)),
  );

  // An appliance downloads with a plain GET of its manifest's URL: the token there stands in for a session.
  const guard = app.authenticate(DEVICE_ADMIN_ROLES);
  const grantedTenants = new WeakMap<FastifyRequest, string>();
  async function adminOrToken(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const { token } = request.query as { token?: unknown };
    if (token === undefined) return guard.call(this, request, reply);
    const { release_id } = request.params as { release_id: string };
    if (typeof token !== 'string') throw invalidDownloadToken();
    grantedTenants.set(request, await releases.downloadTenant(token, release_id));
  }

  r.get(
    '/releases/:release_id/artifact',
    {
      onRequest: adminOrToken,
      schema: {
        tags: doc.tags,
        security: [{ bearer: [] }, {}],
        summary: 'Download the release’s archive',
        description:
          'For the tenant’s administrators (bearer token), or anyone holding the URL of a signed update manifest (`?token=…`, valid until the manifest’s expiry; 401 INVALID_DOWNLOAD_TOKEN otherwise). ETag is the SHA-256; `Range: bytes=…` answers 206 with that part (416 past the end), so a cut-off download resumes.',
        produces: ['application/gzip'],
        params,
        querystring: schemas.ArtifactQuerySchema,
        response: {
          200: Type.Unsafe<unknown>({ description: 'the archive’s bytes' }),
          206: Type.Unsafe<unknown>({ description: 'the requested range of them' }),
          304: Type.Null({ description: 'the copy you hold (If-None-Match) is current' }),
          ...errorResponses(400, 401, 403, 404, 416),
        },
      },
    },
    async (request, reply) => {
      const tenantId = grantedTenants.get(request) ?? tenant(request);
      return sendArtifact(request, reply, await releases.artifact(tenantId, request.params.release_id));
    },
  );
}
