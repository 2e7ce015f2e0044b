import { NotFoundError } from '../../../shared/http/errors.ts';

export const deviceNotFound = () => new NotFoundError('Device', 'DEVICE_NOT_FOUND');
export const alertNotFound = () => new NotFoundError('Device alert', 'DEVICE_ALERT_NOT_FOUND');
