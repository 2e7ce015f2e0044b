/** Auto-remediation: risk-rated actions with approval, rate limits, safety checks and executors. */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AlertingService } from '../alerting/index.ts';
import type { CockpitService } from '../cockpit/index.ts';
import type { Store } from '../db/index.ts';
import type { DeviceService } from '../devices/index.ts';

export interface RemediationDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  alerting: AlertingService;
  cockpit: CockpitService;
  devices: DeviceService;
}

export function createRemediationService(_deps: RemediationDeps) {
  return {};
}

export type RemediationService = ReturnType<typeof createRemediationService>;

export async function remediationRoutes(
  _app: FastifyInstance,
  _options: { remediation: RemediationService },
) {}
