import { InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';

/** The notify module's error codes, answered in the general error envelope. */
export const notificationNotFound = () => new NotFoundError('Notification', 'NOTIFICATION_NOT_FOUND');

export const badWebhookUrl = (reason: string) =>
  new InvalidRequestError('The request is invalid', [
    { field: 'body.team_chat_webhook_url', message: reason },
  ]);
