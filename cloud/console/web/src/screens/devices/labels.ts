/** Words and tones for the states the MDM and rollout routes answer. */
import type { Tone } from '../../components/ui.tsx';
import type { DeviceState, DeviceType, RevocationReason, RolloutState, StoreRolloutState } from './types.ts';

export const TYPE_LABELS: Record<DeviceType, string> = {
  appliance: 'Appliance',
  kds: 'Kitchen display',
  pos: 'POS terminal',
  printer: 'Printer',
  camera: 'Camera',
  sensor: 'Sensor',
};

export const STATE_LABELS: Record<DeviceState, { label: string; tone: Tone }> = {
  pending_activation: { label: 'Waiting to enrol', tone: 'info' },
  active: { label: 'Active', tone: 'ok' },
  online: { label: 'Online', tone: 'ok' },
  offline: { label: 'Offline', tone: 'warn' },
  revoked: { label: 'Revoked', tone: 'bad' },
};

export const REASON_LABELS: Record<RevocationReason, string> = {
  unspecified: 'No particular reason',
  key_compromise: 'Its key may be compromised (stolen or lost)',
  superseded: 'Replaced by another certificate',
  cessation_of_operation: 'Taken out of service',
};

export const ROLLOUT_LABELS: Record<RolloutState, { label: string; tone: Tone }> = {
  running: { label: 'Running', tone: 'info' },
  paused: { label: 'Paused', tone: 'warn' },
  halted: { label: 'Halted', tone: 'bad' },
  completed: { label: 'Completed', tone: 'ok' },
  aborted: { label: 'Aborted', tone: 'neutral' },
};

export const STORE_STATE_LABELS: Record<StoreRolloutState, { label: string; tone: Tone }> = {
  queued: { label: 'Queued', tone: 'neutral' },
  scheduled: { label: 'Scheduled', tone: 'info' },
  downloading: { label: 'Downloading', tone: 'info' },
  installing: { label: 'Installing', tone: 'info' },
  healthy: { label: 'Healthy', tone: 'ok' },
  rolled_back: { label: 'Rolled back', tone: 'bad' },
  failed: { label: 'Failed', tone: 'bad' },
  excluded: { label: 'Excluded', tone: 'neutral' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
};
