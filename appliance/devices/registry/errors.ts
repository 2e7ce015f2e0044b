import { AppError, ConflictError, NotFoundError } from '../../../shared/http/errors.ts';

export const deviceNotFound = () => new NotFoundError('Device', 'DEVICE_NOT_FOUND');
export const alertNotFound = () => new NotFoundError('Device alert', 'DEVICE_ALERT_NOT_FOUND');
export const deviceOffline = (deviceId: string) =>
  new ConflictError(
    `Device ${deviceId} is offline; it cannot be restarted until it is back`,
    'DEVICE_OFFLINE',
  );
export const commandsUnavailable = (why: string) =>
  new AppError(503, 'DEVICE_COMMANDS_UNAVAILABLE', `Commands cannot reach the store's devices: ${why}`);
export const commandFailed = (commandId: string, reason: string) =>
  new AppError(502, 'DEVICE_COMMAND_FAILED', `Command ${commandId}: ${reason}`);
export const commandUnanswered = (commandId: string, reason: string) =>
  new AppError(504, 'DEVICE_COMMAND_TIMEOUT', `Command ${commandId}: ${reason}`);
