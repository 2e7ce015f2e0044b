/**
 * The store's vision: the camera registry and its settings, the pipelines that capture, detect,
 * track and count (drive-thru lane, occupancy, tray verification), their models, and the routes
 * that answer from what they see.
 */
export { createVisionRegistry, visionApiRoutes, visionRoutes } from './registry/index.ts';
export {
  type ApplianceVision,
  createVisionHistory,
  createVisionRuntimeFor,
  visionRuntimeApiRoutes,
  visionRuntimeRoutes,
} from './runtime/index.ts';
export {
  CameraSettingsSchema,
  createSettingsStore,
  DriveThruSettingsSchema,
  EdgeSettingsSchema,
  type PushedSettings,
  PushedSettingsSchema,
  type SettingsStore,
} from './settings/index.ts';
