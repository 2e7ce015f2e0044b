/**
 * Settings the cloud pushes to the appliance over the fleet link: the edge device's, the
 * drive-thru's and each camera's (docs/vision.md, "Settings"). Their schemas and
 * storage belong to the vision area (appliance/vision/settings), where managers change the same
 * sections locally; a command's sections replace those stored whole. Unknown keys are refused, so a
 * typo in the cloud fails the command instead of being silently ignored.
 */
import { Value } from '@sinclair/typebox/value';
import { PushedSettingsSchema } from '../vision/index.ts';

export {
  CameraSettingsSchema,
  createSettingsStore,
  DriveThruSettingsSchema,
  EdgeSettingsSchema,
  type PushedSettings,
  PushedSettingsSchema,
  type SettingsStore,
} from '../vision/index.ts';

/** Why a payload is not settings (the first problem, as the cloud's command result), or undefined. */
export function settingsProblem(payload: unknown): string | undefined {
  const error = Value.Errors(PushedSettingsSchema, payload).First();
  return error ? `${error.path || '/'}: ${error.message}` : undefined;
}
