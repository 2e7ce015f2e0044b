/** The shapes of the /v1/mdm answers this area reads, as docs/api/cloud.md lists them. */

export type { Paged as ListAnswer } from '../../api.ts';

export const DEVICE_TYPES = ['appliance', 'kds', 'pos', 'printer', 'camera', 'sensor'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

export const DEVICE_STATES = ['pending_activation', 'active', 'online', 'offline', 'revoked'] as const;
export type DeviceState = (typeof DEVICE_STATES)[number];

export const REVOCATION_REASONS = [
  'unspecified',
  'key_compromise',
  'superseded',
  'cessation_of_operation',
] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

export interface Device {
  id: string;
  location_id: string;
  device_type: DeviceType;
  name: string;
  serial_number: string;
  model: string | null;
  firmware_version: string | null;
  state: DeviceState;
  last_seen_at: string | null;
  enrolled_at: string | null;
  certificate_expires_at: string | null;
  enrollment_token_expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

export interface NewDevice extends Device {
  enrollment_token: string;
}

export interface RegeneratedToken {
  device_id: string;
  state: DeviceState;
  enrollment_token: string;
  expires_at: string;
}

export interface Command {
  command_id: string;
  state: string;
  expires_at: string;
}

export interface Certificate {
  serial: string;
  device_id: string;
  not_before: string;
  not_after: string;
  revoked: boolean;
  revoked_at: string | null;
  revocation_reason: RevocationReason | null;
  replaced_by: string | null;
}

export interface Release {
  id: string;
  version: string;
  size: number;
  sha256: string;
  state: 'available' | 'retired';
  notes: string | null;
  created_at: string;
  retired_at: string | null;
}

export type RolloutState = 'running' | 'paused' | 'halted' | 'completed' | 'aborted';
export type StoreRolloutState =
  | 'queued'
  | 'scheduled'
  | 'downloading'
  | 'installing'
  | 'healthy'
  | 'rolled_back'
  | 'failed'
  | 'excluded'
  | 'cancelled';

export type RolloutCounts = Record<StoreRolloutState, number>;

export interface Rollout {
  id: string;
  release_id: string;
  version: string;
  state: RolloutState;
  waves: Array<{ wave: number; stores: number; counts: RolloutCounts }>;
  current_wave: number;
  soak_ends_at: string | null;
  window: { start: string; end: string };
  allow_open_hours: boolean;
  failure_threshold: number;
  notes: string | null;
  halted_reason: string | null;
  stores: number;
  counts: RolloutCounts;
  created_at: string;
  finished_at: string | null;
}

export interface RolloutStore {
  location_id: string;
  device_id: string;
  wave: number;
  state: StoreRolloutState;
  progress: number;
  reason: string | null;
  attempts: number;
  from_version: string | null;
  to_version: string;
  dispatched_at: string | null;
  finished_at: string | null;
  updated_at: string;
}
