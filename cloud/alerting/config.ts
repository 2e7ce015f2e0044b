/** The alerting module's settings: the escalation worker's pace. */

import { type Settings, settingNames } from '../../shared/config/settings.ts';
import { type Env, read } from '../config-env.ts';

export interface AlertingConfig {
  /** Whether this process runs the escalation worker (ALERTING_WORKER). */
  runWorker: boolean;
  /** How often due escalation steps are looked for. */
  pollMs: number;
  /** Due steps taken per look; each runs in its own transaction. */
  batchSize: number;
}

export const DEFAULT_ALERTING_CONFIG: AlertingConfig = { runWorker: true, pollMs: 250, batchSize: 50 };

const d = DEFAULT_ALERTING_CONFIG;

export const ALERTING_SETTINGS = {
  runWorker: {
    name: 'ALERTING_WORKER',
    type: 'flag',
    default: d.runWorker,
    description: 'run the escalation worker in this process',
  },
  pollMs: {
    name: 'ALERTING_POLL_MS',
    type: 'integer',
    default: d.pollMs,
    min: 10,
    max: 60_000,
    description: 'how often (ms) due escalation steps are looked for',
  },
  batchSize: {
    name: 'ALERTING_BATCH_SIZE',
    type: 'integer',
    default: d.batchSize,
    min: 1,
    max: 1000,
    description: 'due steps taken per look; each runs in its own transaction',
  },
} as const satisfies Settings;

/** Every variable loadAlertingConfig reads. */
export const ALERTING_VARIABLES = settingNames(ALERTING_SETTINGS);

export function loadAlertingConfig(env: Env): AlertingConfig {
  const s = ALERTING_SETTINGS;
  return {
    runWorker: read(env, s.runWorker),
    pollMs: read(env, s.pollMs),
    batchSize: read(env, s.batchSize),
  };
}
