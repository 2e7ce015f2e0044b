import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AlertingService } from '../alerting/index.ts';
import type { Store } from '../db/index.ts';
import type { AiopsConfig } from './config.ts';

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

/** What every part of the aiops service shares. */
export type AiopsContext = AiopsDeps;
