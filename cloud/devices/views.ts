/** Rows as the API shows them: parsed JSON, booleans, and never a token digest or a key. */
import type { DeviceWithExpiry } from './store.ts';
import type { DeviceCertificateRow, DeviceCommandRow, DeviceRow } from './tables.ts';

export const toDevice = (row: DeviceWithExpiry) => ({
  id: row.id,
  tenant_id: row.tenant_id,
  location_id: row.location_id,
  device_type: row.device_type,
  name: row.name,
  serial_number: row.serial_number,
  model: row.model,
  firmware_version: row.firmware_version,
  state: row.state,
  last_seen_at: row.last_seen_at,
  enrolled_at: row.enrolled_at,
  certificate_expires_at: row.certificate_expires_at,
  enrollment_token_expires_at: row.enrollment_token_digest ? row.enrollment_token_expires_at : null,
  revoked_at: row.revoked_at,
  created_at: row.created_at,
  updated_at: row.updated_at,
});
export type Device = ReturnType<typeof toDevice>;

export const toCertificate = (row: DeviceCertificateRow) => ({
  serial: row.serial,
  device_id: row.device_id,
  not_before: row.not_before,
  not_after: row.not_after,
  revoked: row.revoked_at !== null,
  revoked_at: row.revoked_at,
  revocation_reason: row.revocation_reason,
  replaced_by: row.replaced_by,
});

const parseObject = (json: string | null) =>
  json === null ? null : (JSON.parse(json) as Record<string, unknown>);

export const toCommand = (row: DeviceCommandRow) => ({
  command_id: row.id,
  device_id: row.device_id,
  kind: row.kind,
  state: row.state,
  payload: parseObject(row.payload) ?? {},
  result: parseObject(row.result),
  expires_at: row.expires_at,
  created_at: row.created_at,
  updated_at: row.updated_at,
  acked_at: row.acked_at,
});
export type Command = ReturnType<typeof toCommand>;

/** What a device learns when it gets a certificate: the parts its MQTT topics are built from. */
export const toIssued = (
  device: Pick<DeviceRow, 'id' | 'tenant_id' | 'location_id' | 'device_type'>,
  certificate: { serial: string; pem: string; notAfter: string },
  caCertificate: string,
) => ({
  device_id: device.id,
  tenant_id: device.tenant_id,
  location_id: device.location_id,
  device_type: device.device_type,
  serial: certificate.serial,
  certificate: certificate.pem,
  ca_certificate: caCertificate,
  expires_at: certificate.notAfter,
});
