import { FormatRegistry, type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

// TypeBox checks only formats it was told about; the fleet link's timestamps are RFC 3339.
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set(
    'date-time',
    (value) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
      !Number.isNaN(Date.parse(value)),
  );

/**
 * What the cloud and an appliance say to each other on the fleet link (topics in
 * shared/mqtt/topics.ts). Every command has an id (the appliance acts on an id once, however often
 * it arrives), a deadline after which it is not acted on, and is answered by acknowledgements
 * whose state moves forward only: received → succeeded | failed, or rejected/expired at once.
 */
export const COMMAND_KINDS = [
  'sync_now',
  'restart',
  'settings',
  'update',
  'cancel_update',
  'models_sync',
  'calibrate',
  // Auto-remediation (issue 10): restart one of the appliance's services, rotate its logs, clear its caches.
  'restart_service',
  'rotate_logs',
  'clear_cache',
  // Device certificates the cloud revoked: the store's broker refuses them and closes their sessions.
  'revoke_certificates',
] as const;
export type CommandKind = (typeof COMMAND_KINDS)[number];

export const FleetCommandSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  kind: Type.Union(COMMAND_KINDS.map((kind) => Type.Literal(kind))),
  /** A store device behind the appliance (restart through it); absent means the appliance itself. */
  device_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  payload: Type.Record(Type.String(), Type.Unknown()),
  issued_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
});
export type FleetCommand = Static<typeof FleetCommandSchema>;

export const ACK_STATES = ['received', 'progress', 'succeeded', 'failed', 'rejected', 'expired'] as const;
export type AckState = (typeof ACK_STATES)[number];

export const FleetAckSchema = Type.Object({
  command_id: Type.String({ minLength: 1, maxLength: 64 }),
  state: Type.Union(ACK_STATES.map((state) => Type.Literal(state))),
  at: Type.String({ format: 'date-time' }),
  /** Progress of long work (an update's download), 0 to 1. */
  progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  result: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  reason: Type.Optional(Type.String({ maxLength: 500 })),
});
export type FleetAck = Static<typeof FleetAckSchema>;

/** An appliance's own status, retained by the broker; `online: false` is its will message. */
export const FleetStatusSchema = Type.Object({
  online: Type.Boolean(),
  at: Type.String({ format: 'date-time' }),
  version: Type.Optional(Type.String({ maxLength: 64 })),
});
export type FleetStatus = Static<typeof FleetStatusSchema>;

/**
 * The reason an appliance fails a command it was running when it stopped (a crash, a kill): it
 * cannot be resumed, and the cloud sends an interrupted update again (the download resumes).
 */
export const INTERRUPTED_REASON = 'the appliance stopped while it ran';

/** States after which nothing more happens to a command. */
export const FINAL_ACK_STATES: ReadonlySet<AckState> = new Set([
  'succeeded',
  'failed',
  'rejected',
  'expired',
]);

/**
 * The payload of `revoke_certificates`: certificates the cloud revoked, pushed to the appliances of
 * the store their certificate names. Acting on one again changes nothing, and it stays worth acting
 * on until the last certificate runs out (TLS refuses it from then on), which is its deadline.
 */
export const RevokedCertificateSchema = Type.Object({
  serial: Type.String({ pattern: '^[0-9A-Fa-f]{1,64}$' }),
  revoked_at: Type.String({ format: 'date-time' }),
  reason: Type.String({ minLength: 1, maxLength: 64 }),
  not_after: Type.String({ format: 'date-time' }),
});
export type RevokedCertificate = Static<typeof RevokedCertificateSchema>;

export const RevokeCertificatesPayloadSchema = Type.Object({
  certificates: Type.Array(RevokedCertificateSchema, { minItems: 1, maxItems: 1000 }),
});
export type RevokeCertificatesPayload = Static<typeof RevokeCertificatesPayloadSchema>;

export function revokeCertificatesCommand(
  id: string,
  issuedAt: Date,
  certificates: RevokedCertificate[],
): FleetCommand {
  const lastNotAfter = Math.max(issuedAt.getTime(), ...certificates.map((c) => Date.parse(c.not_after)));
  return {
    id,
    kind: 'revoke_certificates',
    payload: { certificates },
    issued_at: issuedAt.toISOString(),
    expires_at: new Date(lastNotAfter).toISOString(),
  };
}

/** The certificates a `revoke_certificates` command carries, or undefined when its payload does not fit. */
export const readRevokedCertificates = (payload: Record<string, unknown>) =>
  Value.Check(RevokeCertificatesPayloadSchema, payload)
    ? (payload as RevokeCertificatesPayload).certificates
    : undefined;

/** A message off the wire, checked against its schema: JSON that does not fit is undefined. */
function read<T>(schema: Parameters<typeof Value.Check>[0], payload: Buffer | string): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString());
  } catch {
    return undefined;
  }
  return Value.Check(schema, value) ? (value as T) : undefined;
}

export const readCommand = (payload: Buffer | string) => read<FleetCommand>(FleetCommandSchema, payload);
export const readAck = (payload: Buffer | string) => read<FleetAck>(FleetAckSchema, payload);
export const readStatus = (payload: Buffer | string) => read<FleetStatus>(FleetStatusSchema, payload);
