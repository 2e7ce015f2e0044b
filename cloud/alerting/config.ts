/** The alerting module's settings: the escalation worker's pace. */

import { type Env, flag, integer } from '../config-env.ts';

export interface AlertingConfig {
  /** Whether this process runs the escalation worker (ALERTING_WORKER). */
  runWorker: boolean;
  /** How often due escalation steps are looked for. */
  pollMs: number;
  /** Due steps taken per look; each runs in its own transaction. */
  batchSize: number;
}

/** Every variable loadAlertingConfig reads (the README's configuration table). */
export const ALERTING_VARIABLES = ['ALERTING_WORKER', 'ALERTING_POLL_MS', 'ALERTING_BATCH_SIZE'] as const;

export const DEFAULT_ALERTING_CONFIG: AlertingConfig = { runWorker: true, pollMs: 250, batchSize: 50 };

export function loadAlertingConfig(env: Env): AlertingConfig {
  const d = DEFAULT_ALERTING_CONFIG;
  return {
    runWorker: flag(env, 'ALERTING_WORKER', d.runWorker),
    pollMs: integer(env, 'ALERTING_POLL_MS', d.pollMs, 10, 60_000),
    batchSize: integer(env, 'ALERTING_BATCH_SIZE', d.batchSize, 1, 1000),
  };
}
