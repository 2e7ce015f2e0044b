/** Alerting: ingest, fingerprint dedupe, severity routing, escalation and maintenance windows. */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import type { EventLog } from '../events/index.ts';
import type { NotifyService } from '../notify/index.ts';
import type { OncallService, Person } from '../oncall/index.ts';
import type { AlertingConfig } from './config.ts';

export interface Alert {
  id: string;
  severity: string;
  title: string;
  service: string;
  status: string;
  started_at: string;
  acknowledged_by: string | null;
  escalation_level: number;
}

export interface AlertFired {
  tenantId: string;
  alert: Alert;
  responders: Person[];
  policyId: string | null;
}

export interface AlertingDeps {
  store: Store;
  events: EventLog;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: AlertingConfig;
  notify: NotifyService;
  oncall: OncallService;
}

export function createAlertingService(_deps: AlertingDeps) {
  return {
    async get(_tenantId: string, _id: string): Promise<Alert | undefined> {
      return undefined;
    },
    async between(_tenantId: string, _fromIso: string, _toIso: string): Promise<Alert[]> {
      return [];
    },
    onFired(_listener: (event: AlertFired) => void | Promise<void>) {},
    start() {},
    async close() {},
  };
}

export type AlertingService = ReturnType<typeof createAlertingService>;

export async function alertingRoutes(_app: FastifyInstance, _options: { alerting: AlertingService }) {}
