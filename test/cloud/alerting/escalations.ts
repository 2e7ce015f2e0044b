import type { AlertingCloud } from './alerting-cloud.ts';

const DAY = 86_400_000;

/**
 * Runs every escalation still pending to its end: a day at a time (longer than any level's
 * time-out in these suites) until a look notifies nobody. runDue takes every tenant's due steps
 * on the one clock of the file's cloud, so a test that counts what it escalated would otherwise
 * count what an earlier test left pending too.
 */
export async function runOutEscalations(context: AlertingCloud) {
  for (let round = 0; round < 20; round += 1) {
    context.cloud.clock.advance(DAY);
    if ((await context.cloud.services.alerting.runDue()) === 0) return;
  }
  throw new Error('escalations still notifying after 20 days: a policy that never ends?');
}
