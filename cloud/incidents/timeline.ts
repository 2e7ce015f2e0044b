/** Timeline entries: what happened to an incident, in order, and who did it. */
import type { IdGenerator } from '../../shared/ids.ts';
import type { TimelineKind, TimelineRow } from './tables.ts';

export interface TimelineInput {
  kind: TimelineKind;
  text: string;
  /** A user id; null or absent for the system. */
  actor?: string | null | undefined;
  data?: Record<string, unknown> | undefined;
  /** Written once per incident and key, so a replayed step records nothing new. */
  dedupeKey?: string | undefined;
}

const TEXT_MAX = 4000;

export const timelineRow = (
  newId: IdGenerator,
  tenantId: string,
  incidentId: string,
  at: string,
  input: TimelineInput,
): TimelineRow => ({
  id: newId(),
  tenant_id: tenantId,
  incident_id: incidentId,
  at,
  kind: input.kind,
  actor: input.actor ?? null,
  text: input.text.slice(0, TEXT_MAX),
  data: input.data ? JSON.stringify(input.data) : null,
  dedupe_key: input.dedupeKey ?? null,
});
