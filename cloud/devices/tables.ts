import type { DeviceType } from '../../shared/mqtt/topics.ts';

/**
 * `pending_activation` until the device enrols; `active` once it holds a certificate; `online` and
 * `offline` as the fleet link hears from it; `revoked` for good (its certificates are revoked too).
 */
export const DEVICE_STATES = ['pending_activation', 'active', 'online', 'offline', 'revoked'] as const;
export type DeviceState = (typeof DEVICE_STATES)[number];

export const REVOCATION_REASONS = [
  'unspecified',
  'key_compromise',
  'superseded',
  'cessation_of_operation',
] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/** `cancel_update` is the registry's own: it carries a cancellation to an update the device holds. */
export const COMMAND_KINDS = [
  'restart',
  'update',
  'settings',
  'sync_now',
  'cancel_update',
  'models_sync',
  'calibrate',
  // Auto-remediation's fleet actions (cloud/remediation/executors), carried out by the appliance.
  'restart_service',
  'rotate_logs',
  'clear_cache',
] as const;
export type CommandKind = (typeof COMMAND_KINDS)[number];

export const COMMAND_STATES = [
  'queued',
  'sent',
  'acknowledged',
  'succeeded',
  'failed',
  'expired',
  'cancelled',
] as const;
export type CommandState = (typeof COMMAND_STATES)[number];

export interface DeviceCaRow {
  id: string;
  certificate_pem: string;
  /** PKCS#8 PEM. */
  private_key_pem: string;
  created_at: string;
}

export interface DeviceRow {
  id: string;
  tenant_id: string;
  location_id: string;
  device_type: DeviceType;
  name: string;
  serial_number: string;
  model: string | null;
  firmware_version: string | null;
  state: DeviceState;
  last_seen_at: string | null;
  /** When the device first traded a token for a certificate; null while it never has. */
  enrolled_at: string | null;
  /** SHA-256 of the live enrolment token; null once used or when none was issued. */
  enrollment_token_digest: string | null;
  enrollment_token_expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DeviceCertificateRow {
  /** Hexadecimal, lower case, 32 digits. */
  serial: string;
  tenant_id: string;
  device_id: string;
  /** SHA-256 of the certified public key (SPKI DER), hex: a renewal must bring a new key. */
  public_key_sha256: string;
  certificate_pem: string;
  not_before: string;
  not_after: string;
  created_at: string;
  revoked_at: string | null;
  revocation_reason: RevocationReason | null;
  /** The certificate a renewal or re-enrolment issued in this one's place. */
  replaced_by: string | null;
}

export interface DeviceCommandRow {
  id: string;
  tenant_id: string;
  device_id: string;
  kind: CommandKind;
  /** JSON object. */
  payload: string;
  state: CommandState;
  expires_at: string;
  created_at: string;
  updated_at: string;
  acked_at: string | null;
  /** JSON object reported by the device, or null. */
  result: string | null;
  /** The rollout that asked for this update (cloud/releases), or null. */
  rollout_id: string | null;
}

export interface DeviceTelemetryRow {
  id: string;
  tenant_id: string;
  device_id: string;
  /** The sample's time, or the start of the minute a store summarised. */
  at: string;
  /** Samples the row stands for: 1 for a sample, the minute's count for a store's summary. */
  samples: number;
  /**
   * JSON object of metric name to a number (a sample) or a minute's `{count, min, max, avg, last}`
   * (shared/devices/telemetry.ts); anything else is kept but not aggregated.
   */
  metrics: string;
}

export interface DeviceTables {
  device_ca: DeviceCaRow;
  devices: DeviceRow;
  device_certificates: DeviceCertificateRow;
  device_commands: DeviceCommandRow;
  device_telemetry: DeviceTelemetryRow;
}
