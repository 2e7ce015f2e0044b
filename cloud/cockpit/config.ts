/** The operations console's and auto-remediation's settings (the `auto_remediation` keys). */

import { type Settings, settingNames, type TextSetting } from '../../shared/config/settings.ts';
import { type Env, read } from '../config-env.ts';
import { ConfigError } from '../config-error.ts';

export interface RemediationOptions {
  /** Environments where every remediation waits for an operator. */
  requireApproval: string[];
  /** Environments where low and medium risk actions may run without one. */
  autoApprove: string[];
  /** Executions per target in a rolling hour, per rate group. */
  rateLimits: { restart: number; scale: number };
}

export interface CockpitConfig {
  /** How long a console WebSocket may stay open without its auth frame. */
  feedAuthTimeoutMs: number;
  remediation: RemediationOptions;
}

export const DEFAULT_COCKPIT_CONFIG: CockpitConfig = {
  feedAuthTimeoutMs: 5000,
  remediation: {
    requireApproval: ['production'],
    autoApprove: ['development', 'staging'],
    rateLimits: { restart: 3, scale: 5 },
  },
};

const d = DEFAULT_COCKPIT_CONFIG;

export const COCKPIT_SETTINGS = {
  feedAuthTimeoutMs: {
    name: 'COCKPIT_FEED_AUTH_TIMEOUT_MS',
    type: 'integer',
    default: d.feedAuthTimeoutMs,
    min: 100,
    max: 120_000,
    description: 'how long (ms) a console WebSocket may wait before its auth frame',
  },
  requireApproval: {
    name: 'AIOPS_REMEDIATION_REQUIRE_APPROVAL',
    type: 'text',
    default: d.remediation.requireApproval.join(','),
    format: 'a comma-separated list of environment names (empty: none)',
    description: 'environments where every remediation waits for an operator',
  },
  autoApprove: {
    name: 'AIOPS_REMEDIATION_AUTO_APPROVE',
    type: 'text',
    default: d.remediation.autoApprove.join(','),
    format: 'a comma-separated list of environment names (empty: none)',
    description: 'environments where low and medium risk run without approval; may not overlap the former',
  },
  restartPerHour: {
    name: 'AIOPS_REMEDIATION_RESTART_PER_HOUR',
    type: 'integer',
    default: d.remediation.rateLimits.restart,
    min: 1,
    max: 1000,
    description: 'restarts per target per rolling hour',
  },
  scalePerHour: {
    name: 'AIOPS_REMEDIATION_SCALE_PER_HOUR',
    type: 'integer',
    default: d.remediation.rateLimits.scale,
    min: 1,
    max: 1000,
    description: 'scale actions per target per rolling hour',
  },
} as const satisfies Settings;

/** Every variable loadCockpitConfig reads. */
export const COCKPIT_VARIABLES = settingNames(COCKPIT_SETTINGS);

/** Set but empty means no environment at all, unlike the other settings, where empty is the default. */
function environments(env: Env, setting: TextSetting) {
  const { name } = setting;
  const raw = env[name] ?? setting.default ?? '';
  const names = raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const bad = names.find((part) => !/^[A-Za-z0-9_.-]{1,64}$/.test(part));
  if (bad !== undefined)
    throw new ConfigError(`${name} must be a comma-separated list of environment names, got "${raw}"`);
  return names.map((part) => part.toLowerCase());
}

export function loadCockpitConfig(env: Env): CockpitConfig {
  const s = COCKPIT_SETTINGS;
  const requireApproval = environments(env, s.requireApproval);
  const autoApprove = environments(env, s.autoApprove);
  const both = requireApproval.find((name) => autoApprove.includes(name));
  if (both !== undefined)
    throw new ConfigError(
      `AIOPS_REMEDIATION_REQUIRE_APPROVAL and AIOPS_REMEDIATION_AUTO_APPROVE both name "${both}"`,
    );
  return {
    feedAuthTimeoutMs: read(env, s.feedAuthTimeoutMs),
    remediation: {
      requireApproval,
      autoApprove,
      rateLimits: { restart: read(env, s.restartPerHour), scale: read(env, s.scalePerHour) },
    },
  };
}
