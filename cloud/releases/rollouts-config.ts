/** The rollout engine's settings. */
import { type Settings, settingNames } from '../../shared/config/settings.ts';
import { type Env, read } from '../config-env.ts';

export interface RolloutConfig {
  /** Whether this process runs the rollout engine (ROLLOUT_ENGINE); every replica may. */
  runEngine: boolean;
  /** How often the engine looks at each unfinished rollout. */
  tickMs: number;
  /** How long after the appliance said it succeeded the new version must show in its status. */
  installTimeoutSeconds: number;
  /** Sends of one store's update, counting the first, when the appliance stopped while it ran. */
  maxAttempts: number;
}

export const DEFAULT_ROLLOUT_CONFIG: RolloutConfig = {
  runEngine: true,
  tickMs: 10_000,
  installTimeoutSeconds: 600,
  maxAttempts: 3,
};

const d = DEFAULT_ROLLOUT_CONFIG;

export const ROLLOUT_SETTINGS = {
  runEngine: {
    name: 'ROLLOUT_ENGINE',
    type: 'flag',
    default: d.runEngine,
    description: 'run the rollout engine in this process (replicas share the work: each rollout is leased)',
  },
  tickMs: {
    name: 'ROLLOUT_TICK_MS',
    type: 'integer',
    default: d.tickMs,
    min: 50,
    max: 600_000,
    description: 'how often (ms) the engine follows, dispatches and advances each unfinished rollout',
  },
  installTimeoutSeconds: {
    name: 'ROLLOUT_INSTALL_TIMEOUT_SECONDS',
    type: 'integer',
    default: d.installTimeoutSeconds,
    min: 10,
    max: 86_400,
    description:
      'seconds after an appliance reports a successful install within which its status must show the new version; after it, the store counts as rolled back',
  },
  maxAttempts: {
    name: 'ROLLOUT_MAX_ATTEMPTS',
    type: 'integer',
    default: d.maxAttempts,
    min: 1,
    max: 10,
    description:
      'sends of one store’s update when the appliance stopped while installing (it resumes the download); after the last, the store failed',
  },
} as const satisfies Settings;

export const ROLLOUT_VARIABLES = settingNames(ROLLOUT_SETTINGS);

export function loadRolloutConfig(env: Env): RolloutConfig {
  const s = ROLLOUT_SETTINGS;
  return {
    runEngine: read(env, s.runEngine),
    tickMs: read(env, s.tickMs),
    installTimeoutSeconds: read(env, s.installTimeoutSeconds),
    maxAttempts: read(env, s.maxAttempts),
  };
}
