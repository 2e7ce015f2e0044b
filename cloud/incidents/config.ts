/**
 * The chat incident flow's settings. Its auto-resolve time-out is chat's
 * CHAT_INCIDENT_AUTO_RESOLVE_HOURS (cloud/chat/config.ts), read there once.
 */
import { ConfigError } from '../config-error.ts';

export interface IncidentFlowConfig {
  /** CHAT_INCIDENT_FLOW: a fired alert opens an incident with its own chat channel. */
  enabled: boolean;
  /** CHAT_INCIDENT_SWEEP_SECONDS: how often quiet incidents are looked for. */
  sweepSeconds: number;
}

/** Every variable loadIncidentFlowConfig reads (the README's configuration table). */
export const INCIDENT_FLOW_VARIABLES = ['CHAT_INCIDENT_FLOW', 'CHAT_INCIDENT_SWEEP_SECONDS'] as const;

export const DEFAULT_INCIDENT_FLOW_CONFIG: IncidentFlowConfig = {
  enabled: true,
  sweepSeconds: 300,
};

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function flag(env: Env, name: string, fallback: boolean) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!['true', 'false', '1', '0'].includes(raw)) {
    throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  }
  return raw === 'true' || raw === '1';
}

export function loadIncidentFlowConfig(env: Env): IncidentFlowConfig {
  const d = DEFAULT_INCIDENT_FLOW_CONFIG;
  return {
    enabled: flag(env, 'CHAT_INCIDENT_FLOW', d.enabled),
    sweepSeconds: integer(env, 'CHAT_INCIDENT_SWEEP_SECONDS', d.sweepSeconds, 1, 86_400),
  };
}
