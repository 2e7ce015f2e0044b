/**
 * The cameras' open alerts: a metric crossing a threshold raises one, a worse or better crossing
 * changes it, a value back within bounds clears it. Each change is a `vision.alert` event on the
 * store's feed, synced to the cloud with the other domain events.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../../shared/clock.ts';
import type { ApplianceDatabase, ChangeLog } from '../../db/index.ts';
import { type AlertMetric, type AlertSeverity, severityOf, type Threshold } from './minutes.ts';

export interface AlertState {
  camera_id: string;
  model_id: string;
  metric: AlertMetric;
  severity: AlertSeverity;
  value: number;
  threshold: number;
  since: string;
}

export function createVisionAlerts(deps: {
  db: ApplianceDatabase;
  changes: ChangeLog;
  clock: Clock;
  log: Logger;
}) {
  const open = new Map<string, AlertState>();
  return {
    /** Raises, changes or clears the camera's alert on the threshold's metric. */
    judge(cameraId: string, modelId: string, threshold: Threshold, value: number | null) {
      const key = `${cameraId}/${threshold.metric}`;
      const severity = severityOf(threshold, value);
      const previous = open.get(key);
      if (severity === previous?.severity) return;
      const at = deps.clock.now().toISOString();
      const raised: AlertState | undefined = severity && {
        camera_id: cameraId,
        model_id: modelId,
        metric: threshold.metric,
        severity,
        value: value!,
        threshold: threshold[severity],
        since: at,
      };
      if (raised) open.set(key, raised);
      else open.delete(key);
      const data = raised
        ? { ...raised, state: 'raised' }
        : { ...previous!, value, state: 'cleared', cleared_at: at };
      deps.db.transaction(() => deps.changes.emit('vision.alert', data))();
      if (raised) deps.log.warn({ cameraId, metric: threshold.metric, severity, value }, 'vision alert');
      else deps.log.info({ cameraId, metric: threshold.metric, value }, 'vision alert cleared');
    },
    list: () => [...open.values()],
  };
}
