/**
 * The voice menu's way back: each call carries the URL the provider posts the pressed key to and a
 * token only this cloud can make for that notification (HMAC-SHA256 of its id under
 * NOTIFY_CALLBACK_SECRET), so a key press cannot be forged or replayed onto another alert.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const voiceKeypressPath = (notificationId: string) =>
  `/api/v1/alerting/voice/${notificationId}/keypress`;

export const callbackToken = (secret: string, notificationId: string) =>
  createHmac('sha256', secret).update(`voice:${notificationId}`).digest('hex');

export function validCallbackToken(secret: string, notificationId: string, token: string) {
  const expected = Buffer.from(callbackToken(secret, notificationId));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
