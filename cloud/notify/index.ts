/**
 * Notifications: alert messages out by voice, SMS, email, team chat, push and the console feed,
 * through a persisted outbox with retries, and the routes that show every attempt's outcome.
 */

export { loadNotifyConfig, NOTIFY_SETTINGS, type NotifyConfig } from './config.ts';
export { notifyRoutes } from './routes.ts';
export { createNotifyService, type NotifyDeps, type NotifyService } from './service.ts';
export type { NotifyTables } from './tables.ts';
export { alertMessage, severityLabel } from './templates.ts';
export {
  NOTIFICATION_CHANNELS,
  type NotificationChannel,
  type NotificationRequest,
  type Severity,
} from './types.ts';
