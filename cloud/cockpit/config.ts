/** The operations console's and auto-remediation's settings (spec 3's `auto_remediation` keys). */

import { type Env, integer } from '../config-env.ts';
import { ConfigError } from '../config-error.ts';

export interface RemediationOptions {
  /** Environments where every remediation waits for an operator (spec: production by default). */
  requireApproval: string[];
  /** Environments where low and medium risk actions may run without one. */
  autoApprove: string[];
  /** Executions per target in a rolling hour, per rate group (spec: restart 3, scale 5). */
  rateLimits: { restart: number; scale: number };
}

export interface CockpitConfig {
  /** How long a console WebSocket may stay open without its auth frame. */
  feedAuthTimeoutMs: number;
  remediation: RemediationOptions;
}

/** Every variable loadCockpitConfig reads (the README's configuration table). */
export const COCKPIT_VARIABLES = [
  'COCKPIT_FEED_AUTH_TIMEOUT_MS',
  'AIOPS_REMEDIATION_REQUIRE_APPROVAL',
  'AIOPS_REMEDIATION_AUTO_APPROVE',
  'AIOPS_REMEDIATION_RESTART_PER_HOUR',
  'AIOPS_REMEDIATION_SCALE_PER_HOUR',
] as const;

export const DEFAULT_COCKPIT_CONFIG: CockpitConfig = {
  feedAuthTimeoutMs: 5000,
  remediation: {
    requireApproval: ['production'],
    autoApprove: ['development', 'staging'],
    rateLimits: { restart: 3, scale: 5 },
  },
};

function environments(env: Env, name: string, fallback: string[]) {
  const raw = env[name];
  if (raw === undefined) return fallback;
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
  const requireApproval = environments(
    env,
    'AIOPS_REMEDIATION_REQUIRE_APPROVAL',
    DEFAULT_COCKPIT_CONFIG.remediation.requireApproval,
  );
  const autoApprove = environments(
    env,
    'AIOPS_REMEDIATION_AUTO_APPROVE',
    DEFAULT_COCKPIT_CONFIG.remediation.autoApprove,
  );
  const both = requireApproval.find((name) => autoApprove.includes(name));
  if (both !== undefined)
    throw new ConfigError(
      `AIOPS_REMEDIATION_REQUIRE_APPROVAL and AIOPS_REMEDIATION_AUTO_APPROVE both name "${both}"`,
    );
  return {
    feedAuthTimeoutMs: integer(env, 'COCKPIT_FEED_AUTH_TIMEOUT_MS', 5000, 100, 120_000),
    remediation: {
      requireApproval,
      autoApprove,
      rateLimits: {
        restart: integer(env, 'AIOPS_REMEDIATION_RESTART_PER_HOUR', 3, 1, 1000),
        scale: integer(env, 'AIOPS_REMEDIATION_SCALE_PER_HOUR', 5, 1, 1000),
      },
    },
  };
}
