import { AppError, InvalidRequestError } from '../../shared/http/errors.ts';

/** Spec document 1's webhook error codes, answered in the general error envelope. */
export const invalidUrl = (reason: string) =>
  new AppError(400, 'invalid_url', `The webhook URL is invalid: ${reason}`, {
    details: [{ field: 'body.url', message: reason }],
  });

export const invalidEvents = (names: readonly string[]) =>
  new AppError(400, 'invalid_events', 'One or more events are invalid', {
    details: names.map((name) => ({ field: 'body.events', message: `unknown event or pattern: ${name}` })),
  });

export const webhookNotFound = () => new AppError(404, 'webhook_not_found', 'Webhook not found');

export const urlAlreadyExists = () =>
  new AppError(409, 'url_already_exists', 'A webhook with this URL is already registered', {
    details: [{ field: 'body.url', message: 'is already registered' }],
  });

export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(429, 'rate_limited', 'Too many webhook operations; try again later', {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });

export const deliveryNotFound = () => new AppError(404, 'delivery_not_found', 'Delivery not found');

export const deliveryNotRetryable = (status: string) =>
  new AppError(409, 'delivery_not_retryable', `Only a failed delivery can be retried; this one is ${status}`);

export const webhookNotDisabled = () =>
  new AppError(409, 'webhook_not_disabled', 'The webhook is active; only a disabled webhook can be enabled');

export const invalidField = (field: string, message: string) =>
  new InvalidRequestError('The request is invalid', [{ field, message }]);
