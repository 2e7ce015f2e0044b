/**
 * The vision pipeline's settings (docs/vision.md, "Settings"): the edge device's,
 * the drive-thru's and each camera's, their schemas (unknown keys refused) and defaults, kept in
 * appliance_settings. The cloud's settings commands (appliance/fleet) and the local API
 * (appliance/vision/registry) write the same rows, and every save is heard by the same listeners.
 */
export * from '../../../shared/vision/settings.ts';
export {
  cameraSection,
  createSettingsStore,
  type SettingsSavedListener,
  type SettingsStore,
} from './store.ts';
