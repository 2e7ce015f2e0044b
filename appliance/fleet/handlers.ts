/**
 * What the appliance does with each command of the fleet link. A handler's answer is the
 * command's result; a throw fails the command with the message as its reason (the link
 * acknowledges either way, and cancels an update by aborting its signal).
 */
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  type CommandKind,
  type FleetCommand,
  readRevokedCertificates,
} from '../../shared/devices/fleet-protocol.ts';
import { type DeviceCommands, type DeviceRegistry, DeviceSettingsSchema } from '../devices/index.ts';
import type { SyncRound } from '../sync/index.ts';
import type { CommandContext, CommandHandler } from './link.ts';
import type { FleetMaintenance } from './maintenance.ts';
import { type PushedSettings, type SettingsStore, settingsProblem } from './settings.ts';
import type { Updater } from './updater.ts';

/** A manifest as the update command carries it (shared/devices/update-manifest.ts). */
const SignedUpdateSchema = Type.Object({
  version: Type.String(),
  url: Type.String(),
  size: Type.Integer(),
  sha256: Type.String(),
  signature: Type.String(),
  key_id: Type.Optional(Type.String()),
  endorsements: Type.Optional(
    Type.Array(
      Type.Object({
        key_id: Type.String(),
        public_key: Type.String(),
        endorsed_by: Type.String(),
        signature: Type.String(),
      }),
    ),
  ),
});
type SignedUpdatePayload = Static<typeof SignedUpdateSchema>;

const CalibrateSchema = Type.Object({ camera_id: Type.String({ minLength: 1, maxLength: 128 }) });

/** Progress is reported in steps of this much, not per chunk of the download. */
const PROGRESS_STEP = 0.05;

/** What the camera pipeline does for the fleet link; the runtime that owns the detectors provides it. */
export interface FleetVision {
  calibrate(cameraId: string): Promise<Record<string, unknown>>;
  /**
   * Installs the model versions a `models_sync` command names (the payload is checked there),
   * reporting the download's progress (0 to 1); per-model results, failures included.
   */
  syncModels?(
    payload: Record<string, unknown>,
    options: { onProgress(fraction: number): void; signal: AbortSignal },
  ): Promise<Record<string, unknown>>;
}

/** The store broker's revocation list (appliance/identity/revocations.ts), as the fleet link feeds it. */
export interface FleetRevocations {
  /** Certificates the cloud pushed: refused from now on, their open sessions closed. */
  add(certificates: Array<{ serial: string; not_after: string }>): Promise<Record<string, unknown>>;
  /** The fetch of what was revoked since the last one: run whenever the link (re)connects. */
  refresh(): Promise<unknown>;
}

export interface FleetHandlerDeps {
  /** The sync worker's run-now; undefined when sync is not configured. */
  syncNow: (() => Promise<SyncRound | undefined>) | undefined;
  /** Stops the appliance gracefully and has it started again (main.ts: exit for the supervisor). */
  restartSelf: () => void;
  devices: DeviceRegistry;
  deviceCommands: DeviceCommands | undefined;
  settings: SettingsStore;
  /** Undefined without the cloud's update key: every update is then refused. */
  updater: Updater | undefined;
  /** Undefined where no camera pipeline runs: calibration and model syncs are then refused. */
  vision?: FleetVision | undefined;
  /** The restart after the ack has left; tests shorten it. */
  restartDelayMs?: number;
  /** Remediation's service restarts, log rotation and cache clearing; refused where absent. */
  maintenance?: FleetMaintenance | undefined;
  /** Undefined without CLOUD_URL (no revocation list is kept): revocations are then refused. */
  revocations?: FleetRevocations | undefined;
}

const fail = (reason: string): never => {
  throw new Error(reason);
};

export function createFleetHandlers(deps: FleetHandlerDeps): Partial<Record<CommandKind, CommandHandler>> {
  // The answer goes out first (the link publishes it when the handler returns); then the restart,
  // whose graceful stop closes the fleet link, which waits for that answer to be delivered.
  const restartSoon = () => setTimeout(deps.restartSelf, deps.restartDelayMs ?? 250);

  async function syncNow() {
    if (!deps.syncNow) return fail('sync is not configured on this appliance');
    const round = await deps.syncNow();
    if (!round) return fail('the sync round did not reach the cloud; it retries with back-off');
    return { ...round };
  }

  async function restart(command: FleetCommand, context: CommandContext) {
    if (!command.device_id) {
      restartSoon();
      return { restarting: true };
    }
    if (!deps.deviceCommands) return fail('the device broker is not running');
    await deps.deviceCommands.send(
      command.device_id,
      { command_id: command.id, kind: 'restart', expires_at: command.expires_at },
      context.signal,
    );
    return { device_id: command.device_id, answered: true };
  }

  async function settings(command: FleetCommand) {
    if (command.device_id) {
      // A store device's own settings (its temperature limits): kept by the registry.
      if (!Value.Check(DeviceSettingsSchema, command.payload))
        return fail(
          `device settings: ${Value.Errors(DeviceSettingsSchema, command.payload).First()?.message}`,
        );
      deps.devices.putSettings(command.device_id, command.payload);
      return { device_id: command.device_id };
    }
    const problem = settingsProblem(command.payload);
    if (problem) return fail(`settings refused: ${problem}`);
    return { sections: deps.settings.save(command.payload as PushedSettings, command.id) };
  }

  async function update(command: FleetCommand, context: CommandContext) {
    if (command.device_id) return fail('the appliance does not update store devices');
    if (!deps.updater)
      return fail('no update key is configured (APPLIANCE_UPDATE_PUBLIC_KEY): updates are refused');
    if (!Value.Check(SignedUpdateSchema, command.payload))
      return fail('the update carries no signed manifest');
    const manifest = command.payload as SignedUpdatePayload;
    let reported = 0;
    const outcome = await deps.updater.apply(manifest, context.signal, ({ received, total }) => {
      const fraction = total > 0 ? received / total : 0;
      if (fraction - reported < PROGRESS_STEP && fraction < 1) return;
      reported = fraction;
      context.progress(fraction);
    });
    if (outcome.state === 'cancelled') return fail('cancelled');
    // The cloud's rollout engine reads the state before the colon (`rolled_back:` is a version
    // that failed its health check, anything else an update that never got that far).
    if (outcome.state !== 'applied') return fail(`${outcome.state}: ${outcome.reason}`);
    // The new version runs once the appliance starts again from it.
    if (outcome.previous !== outcome.version) restartSoon();
    return {
      version: outcome.version,
      previous: outcome.previous ?? null,
      restarting: outcome.previous !== outcome.version,
    };
  }

  async function calibrate(command: FleetCommand) {
    if (!deps.vision) return fail('this appliance runs no camera pipeline');
    if (!Value.Check(CalibrateSchema, command.payload))
      return fail(
        `calibrate: ${Value.Errors(CalibrateSchema, command.payload).First()?.message} (camera_id)`,
      );
    return deps.vision.calibrate(command.payload.camera_id);
  }

  /** Installs the model versions the cloud names (appliance/vision/models); per-model results, refusals included. */
  async function modelsSync(command: FleetCommand, context: CommandContext) {
    if (command.device_id) return fail('models are installed on the appliance, not on a store device');
    if (!deps.vision?.syncModels) return fail('this appliance runs no camera pipeline');
    let reported = 0;
    return deps.vision.syncModels(command.payload, {
      signal: context.signal,
      onProgress: (fraction) => {
        if (fraction - reported < PROGRESS_STEP && fraction < 1) return;
        reported = fraction;
        context.progress(fraction);
      },
    });
  }

  /** Remediation's actions act on the appliance itself, never on a store device behind it. */
  const onAppliance =
    (act: (maintenance: FleetMaintenance, command: FleetCommand) => Promise<Record<string, unknown>>) =>
    async (command: FleetCommand) => {
      if (command.device_id) return fail(`${command.kind} acts on the appliance, not on a store device`);
      if (!deps.maintenance) return fail(`${command.kind} is not available on this appliance`);
      return act(deps.maintenance, command);
    };
  const restartService = onAppliance((maintenance, command) => {
    const service = command.payload.service ?? 'appliance';
    if (typeof service !== 'string') return fail('restart_service: service must be a name');
    return maintenance.restartService(service);
  });

  async function revokeCertificates(command: FleetCommand) {
    if (!deps.revocations) return fail('this appliance keeps no revocation list (CLOUD_URL is not set)');
    const certificates = readRevokedCertificates(command.payload);
    if (!certificates) return fail('revoke_certificates carries no list of certificates');
    return deps.revocations.add(certificates);
  }

  return {
    sync_now: syncNow,
    restart,
    settings,
    update,
    calibrate,
    models_sync: modelsSync,
    restart_service: restartService,
    rotate_logs: onAppliance((maintenance) => maintenance.rotateLogs()),
    clear_cache: onAppliance((maintenance) => maintenance.clearCaches()),
    revoke_certificates: revokeCertificates,
  };
}
