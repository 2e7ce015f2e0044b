/** The alerting, incident and chat records as docs/api/cloud.md gives them, and how they show. */
import type { Tone } from '../../components/ui.tsx';

export type AlertSeverity = 'P1' | 'P2' | 'P3' | 'P4' | 'P5';
export type AlertStatus = 'firing' | 'acknowledged' | 'resolved';

export interface Alert {
  id: string;
  severity: AlertSeverity;
  title: string;
  service: string;
  status: AlertStatus;
  started_at: string;
  acknowledged_by: string | null;
  escalation_level: number;
  source: string;
  description: string | null;
  labels: Record<string, string>;
  runbook_url: string | null;
  occurrences: number;
  last_seen_at: string;
  acknowledged_at: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
  suppressed: boolean;
  maintenance_type: string | null;
}

export interface AlertPage {
  alerts: Alert[];
  next_cursor: string | null;
}

export type IncidentSeverity = 'low' | 'medium' | 'high' | 'critical';
export type IncidentStatus = 'open' | 'acknowledged' | 'resolved';

export interface Responder {
  name: string;
  email: string;
  user_id: string | null;
  invited: boolean;
}

export interface Incident {
  id: string;
  type: string | null;
  title: string;
  severity: IncidentSeverity;
  status: IncidentStatus;
  service: string | null;
  description: string | null;
  runbook_url: string | null;
  device_id: string | null;
  location_id: string | null;
  source: 'api' | 'event' | 'alert';
  occurrences: number;
  last_occurred_at: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
  alert_id: string | null;
  channel_id: string | null;
  responders: Responder[];
  started_at: string;
  last_activity_at: string;
}

export interface TimelineEntry {
  id: string;
  at: string;
  kind: string;
  actor: string | null;
  text: string;
}

export interface Channel {
  id: string;
  name: string;
  topic: string | null;
  type: string;
  member_count?: number;
  my_role: 'owner' | 'member' | null;
}

export interface ChatMessage {
  id: string;
  author_id: string | null;
  kind: 'user' | 'system';
  content: string;
  reply_count: number;
  created_at: string;
}

export type { Paged } from '../../api.ts';

const ALERT_SEVERITY: Record<AlertSeverity, { tone: Tone; label: string }> = {
  P1: { tone: 'bad', label: 'P1 critical' },
  P2: { tone: 'bad', label: 'P2 high' },
  P3: { tone: 'warn', label: 'P3 medium' },
  P4: { tone: 'info', label: 'P4 low' },
  P5: { tone: 'neutral', label: 'P5 info' },
};

export const alertSeverity = (severity: AlertSeverity) =>
  ALERT_SEVERITY[severity] ?? { tone: 'neutral' as Tone, label: severity };

export const ALERT_STATUS_TONE: Record<AlertStatus, Tone> = {
  firing: 'bad',
  acknowledged: 'warn',
  resolved: 'ok',
};

export const INCIDENT_SEVERITY_TONE: Record<IncidentSeverity, Tone> = {
  critical: 'bad',
  high: 'bad',
  medium: 'warn',
  low: 'info',
};

export const INCIDENT_STATUS_TONE: Record<IncidentStatus, Tone> = {
  open: 'bad',
  acknowledged: 'warn',
  resolved: 'ok',
};

export const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1).replace(/_/g, ' ');
