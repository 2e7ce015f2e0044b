import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  EnrolRequestSchema,
  IssuedCertificateSchema,
  RenewRequestSchema,
} from '../../shared/devices/enrolment.ts';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { requireAuth } from '../gateway/index.ts';
import { DEVICE_ADMIN_ROLES, DEVICE_READER_ROLES } from './routes-devices.ts';
import * as schemas from './schemas.ts';
import type { DeviceService } from './service.ts';

const doc = { tags: ['devices'], security: [{ bearer: [] }] };
// Devices hold no bearer token: the enrolment token or the current key is their credential.
const deviceDoc = { tags: ['devices'], security: [] };
const publicDoc = { tags: ['devices'], security: [] };

/** /v1/mdm: the CA, enrolment and renewal by devices, and certificates for administrators. */
export async function certificateRoutes(app: FastifyInstance, { devices }: { devices: DeviceService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const admins = { onRequest: app.authenticate(DEVICE_ADMIN_ROLES) };
  const readers = { onRequest: app.authenticate(DEVICE_READER_ROLES) };

  r.get(
    '/ca',
    {
      schema: {
        ...publicDoc,
        summary: 'The device CA certificate',
        response: { 200: Envelope(schemas.CaSchema) },
      },
    },
    async (request) => envelope(request.id, await devices.caCertificate()),
  );

  r.get(
    '/ca/crl',
    {
      schema: {
        ...publicDoc,
        summary: 'The X.509 CRL of the device CA (PEM), for TLS servers; valid one day',
        produces: ['application/x-pem-file'],
      },
    },
    async (_request, reply) => reply.type('application/x-pem-file').send(await devices.crl()),
  );

  r.get(
    '/certificates/revoked',
    {
      schema: {
        ...publicDoc,
        summary: 'Serials of revoked certificates not yet expired, for appliances to refuse at connection',
        querystring: schemas.RevokedQuerySchema,
        response: { 200: Envelope(schemas.RevokedListSchema), ...errorResponses(400) },
      },
    },
    async (request) => envelope(request.id, await devices.revokedSerials(request.query.since)),
  );

  r.post(
    '/enroll',
    {
      schema: {
        ...deviceDoc,
        summary: 'Trade an enrolment token and a CSR for a device certificate',
        body: EnrolRequestSchema,
        response: { 200: Envelope(IssuedCertificateSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => envelope(request.id, await devices.enrol(request.body)),
  );

  r.post(
    '/devices/:device_id/renew',
    {
      schema: {
        ...deviceDoc,
        summary: 'A device renews its certificate for a new key, signing the CSR with its current key',
        params: schemas.DeviceParamsSchema,
        body: RenewRequestSchema,
        response: { 200: Envelope(IssuedCertificateSchema), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => envelope(request.id, await devices.renew(request.params.device_id, request.body)),
  );

  r.get(
    '/certificates',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'The tenant’s certificates expiring within a window, soonest first',
        querystring: schemas.CertificateQuerySchema,
        response: { 200: PageEnvelope(schemas.CertificateSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { expiring_within, include_revoked, limit, cursor } = request.query;
      const page = await devices.expiringCertificates(requireAuth(request).tenantId, {
        withinMs: schemas.durationMs(expiring_within),
        includeRevoked: include_revoked,
        limit,
        after: schemas.parseExpiryCursor(cursor),
      });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.post(
    '/certificates/:serial/revoke',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Revoke one certificate (listed in the revocation list and the CRL)',
        params: schemas.SerialParamsSchema,
        body: schemas.RevokeBodySchema,
        response: { 200: Envelope(schemas.CertificateSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await devices.revokeCertificate(
          requireAuth(request).tenantId,
          request.params.serial,
          request.body.reason,
        ),
      ),
  );
}
