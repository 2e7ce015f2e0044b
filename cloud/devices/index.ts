/**
 * Devices and MDM: the device registry, the device certificate authority (enrolment, renewal,
 * revocation, CRL), commands to devices and their telemetry. Owns the device_ca, devices,
 * device_certificates, device_commands and device_telemetry tables; served under /v1/mdm/* and
 * /v1/iot/*. The fleet link (MQTT) uses the service's functions, never the tables.
 */
import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../audit/index.ts';
import { certificateRoutes } from './routes-certificates.ts';
import { deviceRoutes } from './routes-devices.ts';
import type { DeviceService } from './service.ts';

export { DEFAULT_DEVICE_OPTIONS, type DeviceOptions } from './context.ts';
export type { RevocationNotice, RevokedCertificateNotice } from './revocation-notices.ts';
export { DEVICE_ADMIN_ROLES, DEVICE_READER_ROLES } from './routes-devices.ts';
export { iotRoutes } from './routes-iot.ts';
export { createDeviceService, type DeviceService } from './service.ts';

/** /v1/mdm; every administrator's change that succeeded goes to the audit trail with its actor. */
export async function mdmRoutes(app: FastifyInstance, options: { devices: DeviceService; audit: AuditLog }) {
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'GET' || reply.statusCode >= 400 || !request.auth) return;
    await options.audit.record({
      action: `mdm.${request.method.toLowerCase()} ${request.routeOptions.url ?? request.url}`,
      outcome: 'success',
      tenantId: request.auth.tenantId,
      userId: request.auth.userId,
      ipAddress: request.ip,
      details: { params: request.params, status: reply.statusCode, request_id: request.id },
    });
  });
  await app.register(deviceRoutes, { devices: options.devices });
  await app.register(certificateRoutes, { devices: options.devices });
}
export type { StoreDevice } from './registry.ts';
export { EXPIRING_DAYS, type StoreDeviceSummary } from './summaries.ts';
export type { CommandKind, DeviceTables } from './tables.ts';
export type { StoreMinute } from './telemetry.ts';
