/**
 * The chat incident flow's settings. Its auto-resolve time-out is chat's
 * CHAT_INCIDENT_AUTO_RESOLVE_HOURS (cloud/chat/config.ts), read there once.
 */

import { type Env, flag, integer } from '../config-env.ts';

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

export function loadIncidentFlowConfig(env: Env): IncidentFlowConfig {
  const d = DEFAULT_INCIDENT_FLOW_CONFIG;
  return {
    enabled: flag(env, 'CHAT_INCIDENT_FLOW', d.enabled),
    sweepSeconds: integer(env, 'CHAT_INCIDENT_SWEEP_SECONDS', d.sweepSeconds, 1, 86_400),
  };
}
