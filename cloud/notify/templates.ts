/**
 * The words of a notification. Every channel's text starts with the severity label ("[P1 critical]"),
 * and alertMessage puts the service and title in the subject, as the documented Events section asks.
 */
import type { Severity } from './types.ts';

export const SEVERITY_NAMES: Record<Severity, string> = {
  P1: 'critical',
  P2: 'high',
  P3: 'medium',
  P4: 'low',
  P5: 'info',
};

export const severityLabel = (severity: Severity) => `[${severity} ${SEVERITY_NAMES[severity]}]`;

/** The subject with its severity label in front, unless the caller already put it there. */
export function labelled(subject: string, severity: Severity) {
  const label = severityLabel(severity);
  return subject.startsWith(label) ? subject : `${label} ${subject}`;
}

export interface AlertFacts {
  severity: Severity;
  service: string;
  title: string;
  description?: string | null;
  alert_id?: string | null;
  runbook_url?: string | null;
}

/** The subject and text an alert's notifications carry, for every channel alike. */
export function alertMessage(alert: AlertFacts) {
  const subject = `${severityLabel(alert.severity)} ${alert.service}: ${alert.title}`;
  const lines = [subject, `Service: ${alert.service}`, `Title: ${alert.title}`];
  if (alert.description) lines.push('', alert.description);
  if (alert.runbook_url) lines.push('', `Runbook: ${alert.runbook_url}`);
  if (alert.alert_id) lines.push('', `Alert ${alert.alert_id}`);
  return { subject, text: lines.join('\n') };
}

/** The labelled subject, then as much of the text as fits in `max` characters. */
export function messageText(subject: string, text: string, severity: Severity, max: number) {
  const head = labelled(subject, severity);
  const body = text.startsWith(head) ? text.slice(head.length).trim() : text.trim();
  const full = body === '' ? head : `${head}\n${body}`;
  return full.length <= max ? full : `${full.slice(0, max - 1)}…`;
}

/** At most four SMS segments. */
export const smsText = (subject: string, text: string, severity: Severity) =>
  messageText(subject, text, severity, 640);

/** The menu a voice call reads out after the alert, and the action each key stands for. */
export const VOICE_MENU = { '1': 'acknowledge', '2': 'escalate', '3': 'details' } as const;

export function voicePrompt(subject: string, severity: Severity) {
  return (
    `${labelled(subject, severity)}. ` +
    'Press 1 to acknowledge. Press 2 to escalate. Press 3 to hear the details.'
  );
}
