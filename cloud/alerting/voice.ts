/**
 * The voice call's key menu (acknowledge 1, escalate 2, details 3), answered when the
 * provider posts the key a responder pressed. The answer's `say` is what the call reads out next.
 */
import { NotFoundError } from '../../shared/http/errors.ts';
import type { NotifyService } from '../notify/index.ts';
import type { AlertView } from './views.ts';

export const VOICE_KEYS = ['1', '2', '3'] as const;
export type VoiceKey = (typeof VOICE_KEYS)[number];

export interface VoiceAnswer {
  alert_id: string;
  action: 'acknowledge' | 'escalate' | 'details' | 'none';
  done: boolean;
  say: string;
}

/** One answer for a bad token, an unknown id and a notification that is not a call: nothing leaks. */
const unknownCall = () => new NotFoundError('Voice call', 'VOICE_CALL_NOT_FOUND');

export function createVoiceMenu(deps: {
  notify: Pick<NotifyService, 'voiceCall'>;
  alerting: {
    get(tenantId: string, id: string): Promise<AlertView | undefined>;
    acknowledge(tenantId: string, id: string, by: string, note?: string): Promise<unknown>;
    escalateNow(tenantId: string, id: string): Promise<boolean>;
  };
}) {
  return async function keypress(notificationId: string, token: string, key: VoiceKey): Promise<VoiceAnswer> {
    const call = await deps.notify.voiceCall(notificationId, token);
    if (!call?.alertId) throw unknownCall();
    const alert = await deps.alerting.get(call.tenantId, call.alertId);
    if (!alert) throw unknownCall();
    const who = call.recipient?.user_id ?? `voice:${call.recipient?.phone ?? 'unknown'}`;
    if (key === '3') return { alert_id: alert.id, action: 'details', done: true, say: call.text };
    if (alert.status === 'resolved')
      return {
        alert_id: alert.id,
        action: 'none' as const,
        done: false,
        say: 'This alert is already resolved.',
      };
    if (key === '1') {
      if (alert.status === 'acknowledged')
        return {
          alert_id: alert.id,
          action: 'acknowledge' as const,
          done: false,
          say: 'This alert was already acknowledged.',
        };
      await deps.alerting.acknowledge(
        call.tenantId,
        alert.id,
        who,
        'acknowledged by key 1 on the voice call',
      );
      return {
        alert_id: alert.id,
        action: 'acknowledge' as const,
        done: true,
        say: 'Acknowledged. Escalation stops.',
      };
    }
    const escalated = await deps.alerting.escalateNow(call.tenantId, alert.id);
    return {
      alert_id: alert.id,
      action: 'escalate' as const,
      done: escalated,
      say: escalated
        ? 'Escalated to the next level now.'
        : alert.status === 'acknowledged'
          ? 'This alert is acknowledged; there is nothing to escalate.'
          : 'There is no further level to escalate to.',
    };
  };
}
