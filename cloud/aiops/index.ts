/** AI operations: anomaly detection, predictions, correlation, root-cause analysis and insights. */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AlertingService } from '../alerting/index.ts';
import type { Store } from '../db/index.ts';
import type { AiopsConfig } from './config.ts';

export interface MetricSample {
  metric: string;
  subject: string;
  at: string;
  value: number;
}

export interface AiopsDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: AiopsConfig;
  alerting: AlertingService;
  /** The alert an incident was opened for, so RCA accepts an incident id as well as an alert id. */
  incidentAlert: (tenantId: string, incidentId: string) => Promise<string | undefined>;
}

export function createAiopsService(_deps: AiopsDeps) {
  return {
    async recordSamples(_tenantId: string, _samples: MetricSample[]): Promise<void> {},
    start() {},
    async close() {},
  };
}

export type AiopsService = ReturnType<typeof createAiopsService>;

export async function aiopsRoutes(_app: FastifyInstance, _options: { aiops: AiopsService }) {}
