import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../../shared/clock.ts';
import { Envelope, envelope, errorResponses } from '../../../shared/http/envelope.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import { MANAGER_ROLES } from '../../../shared/roles.ts';
import type { DeviceCommands } from './commands.ts';
import { createDeviceRestart } from './restart.ts';
import * as schemas from './schemas.ts';
import type { DeviceRegistry } from './service.ts';

export interface DeviceRoutesOptions {
  devices: DeviceRegistry;
  /** Commands over the store's broker; without them a restart answers 503. */
  commands: DeviceCommands | undefined;
  clock: Clock;
  newId: IdGenerator;
  commandTimeoutMs: number;
}

const doc = { tags: ['devices'], security: [{ bearer: [] }] };

/**
 * The device board for the kiosk and the store's screens. Everyone on shift sees the devices and
 * their alerts (a warm fridge is everybody's business); telemetry, device settings and restarts
 * are the managers', as on the broker, where only managers read the telemetry topics.
 */
export async function deviceRoutes(app: FastifyInstance, options: DeviceRoutesOptions) {
  const { devices } = options;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const staff = { onRequest: app.authenticate() };
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };
  const restart = createDeviceRestart({ ...options, timeoutMs: options.commandTimeoutMs });
  // A restart waiting for its device must not hold the appliance's shutdown for its time-out.
  const stopping = new AbortController();
  app.addHook('preClose', (done) => {
    stopping.abort();
    done();
  });

  r.get(
    '/',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'The store’s devices: status, first and last seen, firmware, last telemetry',
        response: { 200: Envelope(Type.Array(schemas.DeviceSchema)), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, devices.list()),
  );

  r.get(
    '/alerts',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Device alerts, newest first: temperature limits crossed and alerts devices raised',
        querystring: schemas.AlertsQuerySchema,
        response: { 200: Envelope(Type.Array(schemas.AlertSchema)), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request.id, devices.alerts(request.query)),
  );

  r.post(
    '/alerts/:alert_id/clear',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Clear an alert someone has dealt with (a limit alert also clears itself)',
        params: schemas.AlertParamsSchema,
        response: { 200: Envelope(schemas.AlertSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, devices.clearAlert(request.params.alert_id)),
  );

  r.get(
    '/:device_id',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'One device of the store',
        params: schemas.DeviceParamsSchema,
        response: { 200: Envelope(schemas.DeviceSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, devices.get(request.params.device_id)),
  );

  r.get(
    '/:device_id/telemetry',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'A device’s telemetry over a period: per-metric count, min, max, mean, last and points',
        params: schemas.DeviceParamsSchema,
        querystring: schemas.TelemetryQuerySchema,
        response: { 200: Envelope(schemas.TelemetrySchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, devices.telemetryFor(request.params.device_id, request.query.period)),
  );

  r.post(
    '/:device_id/restart',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Restart a store device over the broker, as the cloud would (managers only)',
        params: schemas.DeviceParamsSchema,
        response: {
          200: Envelope(schemas.RestartSchema),
          ...errorResponses(400, 401, 403, 404, 409, 502, 503, 504),
        },
      },
    },
    async (request) => envelope(request.id, await restart(request.params.device_id, stopping.signal)),
  );

  r.put(
    '/:device_id/settings',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Set a device’s temperature limits (managers only); crossing one raises an alert',
        params: schemas.DeviceParamsSchema,
        body: schemas.DeviceSettingsSchema,
        response: { 200: Envelope(schemas.DeviceSettingsSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request.id, devices.putSettings(request.params.device_id, request.body)),
  );
}
