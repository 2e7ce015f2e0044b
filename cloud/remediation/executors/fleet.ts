/**
 * What the three fleet executors share: the alert's labels name the appliance (`device_id`) or
 * the store (`location_id`, all its appliances); the action travels as an MDM command over the
 * fleet link, and the executor waits for every appliance's answer until the agent time-out.
 */
import type { CommandKind, DeviceService } from '../../devices/index.ts';
import type { ExecutionContext, ExecutionResult, RemediationAlert, Target } from './index.ts';

const USABLE = new Set(['active', 'online', 'offline']);
const FINAL = new Set(['succeeded', 'failed', 'expired', 'cancelled']);
const POLL_MS = 100;

type Devices = Pick<DeviceService, 'getDevice' | 'listDevices' | 'queueCommand' | 'commandsFor'>;

async function deviceTarget(
  devices: Devices,
  tenantId: string,
  deviceId: string,
): Promise<Target | { missing: string }> {
  const device = await devices.getDevice(tenantId, deviceId).catch(() => undefined);
  if (!device) return { missing: `device ${deviceId} (label device_id) is not a device of this tenant` };
  if (device.device_type !== 'appliance')
    return { missing: `device ${deviceId} is a ${device.device_type}, not an appliance` };
  if (!USABLE.has(device.state)) return { missing: `appliance ${deviceId} is ${device.state}` };
  return { key: `device:${deviceId}`, description: `appliance ${device.name}`, deviceIds: [deviceId] };
}

async function locationTarget(
  devices: Devices,
  tenantId: string,
  locationId: string,
): Promise<Target | { missing: string }> {
  const page = await devices
    .listDevices(tenantId, { locationId, deviceType: 'appliance' }, { limit: 50 })
    .catch(() => ({ items: [] }));
  const usable = page.items.filter((device) => USABLE.has(device.state));
  if (usable.length === 0)
    return { missing: `location ${locationId} (label location_id) has no enrolled appliance in this tenant` };
  return {
    key: `location:${locationId}`,
    description: `${usable.length} appliance(s) at location ${locationId}`,
    deviceIds: usable.map((device) => device.id),
  };
}

/** The appliance(s) an alert is about, from its labels; device_id wins over location_id. */
export async function fleetTarget(devices: Devices, tenantId: string, alert: RemediationAlert) {
  const labels = alert.labels ?? {};
  if (labels.device_id) return deviceTarget(devices, tenantId, labels.device_id);
  if (labels.location_id) return locationTarget(devices, tenantId, labels.location_id);
  return { missing: 'the alert names no appliance: it has neither a device_id nor a location_id label' };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** Polls the registry until the command ends or the time-out aborts the wait. */
async function settle(
  devices: Devices,
  tenantId: string,
  deviceId: string,
  commandId: string,
  signal: AbortSignal,
) {
  for (;;) {
    const [command] = (await devices.commandsFor(tenantId, { deviceId, limit: 50 })).filter(
      (c) => c.command_id === commandId,
    );
    if (!command || FINAL.has(command.state) || signal.aborted) return command;
    await sleep(POLL_MS, signal);
  }
}

/** Sends `kind` to every target appliance and reports each one's outcome. */
export async function runFleetCommand(
  devices: Devices,
  kind: CommandKind,
  payload: Record<string, unknown>,
  context: ExecutionContext,
): Promise<ExecutionResult> {
  const deviceIds = context.target.deviceIds ?? [];
  const queued = [];
  for (const deviceId of deviceIds)
    queued.push(await devices.queueCommand(context.tenantId, deviceId, { kind, payload }));
  const outcomes = await Promise.all(
    queued.map(async (command) => {
      const final = await settle(
        devices,
        context.tenantId,
        command.device_id,
        command.command_id,
        context.signal,
      );
      return {
        device_id: command.device_id,
        command_id: command.command_id,
        state: final?.state ?? 'unknown',
        result: final?.result ?? null,
      };
    }),
  );
  const success = outcomes.length > 0 && outcomes.every((o) => o.state === 'succeeded');
  const failed = outcomes.find((o) => o.state !== 'succeeded');
  return {
    success,
    details: { commands: outcomes },
    ...(failed ? { error: `appliance ${failed.device_id}: command ${failed.state}` } : {}),
  };
}
