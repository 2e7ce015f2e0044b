import type { Clock } from '../../../shared/clock.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import { DeviceCommandError, type DeviceCommands } from './commands.ts';
import * as errors from './errors.ts';
import type { DeviceRegistry } from './service.ts';

export interface DeviceRestartDeps {
  devices: Pick<DeviceRegistry, 'device'>;
  /** Undefined where no broker runs (tests of the API alone): a restart then answers 503. */
  commands: DeviceCommands | undefined;
  clock: Clock;
  newId: IdGenerator;
  /** How long the device has to answer; the command carries it as its deadline. */
  timeoutMs: number;
}

function asHttpError(commandId: string, error: unknown) {
  if (!(error instanceof DeviceCommandError)) return error;
  if (error.failure === 'failed') return errors.commandFailed(commandId, error.message);
  if (error.failure === 'unanswered') return errors.commandUnanswered(commandId, error.message);
  if (error.failure === 'unknown_device') return errors.deviceNotFound();
  return errors.commandsUnavailable(
    error.failure === 'cancelled' ? 'the appliance is stopping' : error.message,
  );
}

/**
 * A restart asked for on the store's own screens. It travels as the cloud's restarts do (the
 * broker publishes it on the device's cmd topic at QoS 1) and resolves once the device answers on
 * its ack topic, so the screen can show it running until then, and its outcome after.
 */
export function createDeviceRestart(deps: DeviceRestartDeps) {
  return async function restart(deviceId: string, signal?: AbortSignal) {
    const device = deps.devices.device(deviceId);
    if (!device) throw errors.deviceNotFound();
    if (device.status === 'offline') throw errors.deviceOffline(deviceId);
    if (!deps.commands) throw errors.commandsUnavailable('the device broker is not running');
    const command = {
      command_id: deps.newId(),
      kind: 'restart' as const,
      expires_at: new Date(deps.clock.now().getTime() + deps.timeoutMs).toISOString(),
    };
    await deps.commands.send(deviceId, command, signal).catch((error: unknown) => {
      throw asHttpError(command.command_id, error);
    });
    return { command_id: command.command_id, state: 'succeeded' as const };
  };
}
