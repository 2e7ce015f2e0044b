/**
 * The chat incident flow's settings. Its auto-resolve time-out is chat's
 * CHAT_INCIDENT_AUTO_RESOLVE_HOURS (cloud/chat/config.ts), read there once.
 */

import { type Settings, settingNames } from '../../shared/config/settings.ts';
import { type Env, read } from '../config-env.ts';

export interface IncidentFlowConfig {
  /** CHAT_INCIDENT_FLOW: a fired alert opens an incident with its own chat channel. */
  enabled: boolean;
  /** CHAT_INCIDENT_SWEEP_SECONDS: how often quiet incidents are looked for. */
  sweepSeconds: number;
}

export const DEFAULT_INCIDENT_FLOW_CONFIG: IncidentFlowConfig = {
  enabled: true,
  sweepSeconds: 300,
};

export const INCIDENT_FLOW_SETTINGS = {
  enabled: {
    name: 'CHAT_INCIDENT_FLOW',
    type: 'flag',
    default: DEFAULT_INCIDENT_FLOW_CONFIG.enabled,
    description: 'a fired alert opens an incident with its own chat channel',
  },
  sweepSeconds: {
    name: 'CHAT_INCIDENT_SWEEP_SECONDS',
    type: 'integer',
    default: DEFAULT_INCIDENT_FLOW_CONFIG.sweepSeconds,
    min: 1,
    max: 86_400,
    description: 'how often (seconds) quiet incidents are looked for, to resolve them',
  },
} as const satisfies Settings;

/** Every variable loadIncidentFlowConfig reads. */
export const INCIDENT_FLOW_VARIABLES = settingNames(INCIDENT_FLOW_SETTINGS);

export function loadIncidentFlowConfig(env: Env): IncidentFlowConfig {
  return {
    enabled: read(env, INCIDENT_FLOW_SETTINGS.enabled),
    sweepSeconds: read(env, INCIDENT_FLOW_SETTINGS.sweepSeconds),
  };
}
