/**
 * The device registry: the store's devices as its broker sees them (first and last seen, online
 * or offline, firmware, last telemetry), their telemetry with retention, their alerts for the
 * kiosk and the cloud, and commands passed on to them. Owns store_devices, device_telemetry,
 * device_telemetry_minutes, device_settings and device_alerts; served under /v1/devices.
 */
export { type DeviceSettings, DeviceSettingsSchema, isDeviceSettings } from './alerts.ts';
export { createDeviceCommands, DeviceCommandError, type DeviceCommands } from './commands.ts';
export { attachDeviceRegistry } from './listener.ts';
export { deviceRoutes } from './routes.ts';
export {
  createDeviceRegistry,
  DEFAULT_REGISTRY_OPTIONS,
  type Device,
  type DeviceRegistry,
  type DeviceRegistryOptions,
} from './service.ts';
export { TELEMETRY_PERIODS, type TelemetryPeriod } from './telemetry.ts';
