/** An incident's timeline, oldest first and newest last, with a form to add a note. */
import { useState } from 'preact/hooks';
import { query } from '../../api.ts';
import {
  Empty,
  ErrorNotice,
  Field,
  inputValue,
  Loading,
  Pill,
  Section,
  type Tone,
} from '../../components/ui.tsx';
import { formatDateTime } from '../../format.ts';
import type { Resource } from '../../hooks.ts';
import { nextCursorOf } from '../../hooks.ts';
import { api } from '../../session.ts';
import { capitalize, type Paged, type TimelineEntry } from './types.ts';

/** Enough pages for any incident a person reads; the page answers up to 500 entries. */
const MAX_PAGES = 10;

export async function loadTimeline(incidentId: string, signal: AbortSignal): Promise<TimelineEntry[]> {
  const entries: TimelineEntry[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer: Paged<TimelineEntry> = await api.get<Paged<TimelineEntry>>(
      `/api/v1/incidents/${incidentId}/timeline${query({ limit: 500, cursor })}`,
      signal,
    );
    entries.push(...answer.data);
    cursor = nextCursorOf(answer);
    if (!cursor) break;
  }
  return entries;
}

const KIND_TONE: Record<string, Tone> = {
  opened: 'bad',
  alert: 'bad',
  escalated: 'warn',
  acknowledged: 'warn',
  resolved: 'ok',
  auto_resolved: 'ok',
  note: 'info',
};

export function IncidentTimeline(props: {
  incidentId: string;
  timeline: Resource<TimelineEntry[]>;
  names: Map<string, string>;
  timeZone: string | undefined;
}) {
  const { data, error, loading, reload } = props.timeline;
  return (
    <Section title="Timeline" id="incident-timeline-heading">
      <div data-testid="incident-timeline">
        {error !== undefined && (
          <ErrorNotice error={error} onRetry={reload} title="The timeline did not load" />
        )}
        {data === undefined && loading && <Loading label="Loading the timeline…" />}
        {data !== undefined && data.length === 0 && (
          <Empty title="Nothing on the timeline yet">Add a note below to record what you found or did.</Empty>
        )}
        {data !== undefined && data.length > 0 && (
          <ol class="timeline">
            {data.map((entry) => (
              <li key={entry.id} class="timeline-entry" data-testid="timeline-entry" data-kind={entry.kind}>
                <time dateTime={entry.at} class="muted small">
                  {formatDateTime(entry.at, props.timeZone)}
                </time>
                <Pill tone={KIND_TONE[entry.kind] ?? 'neutral'}>{capitalize(entry.kind)}</Pill>
                <span class="timeline-actor small muted">
                  {entry.actor ? (props.names.get(entry.actor) ?? entry.actor) : 'System'}
                </span>
                <p class="timeline-text">{entry.text}</p>
              </li>
            ))}
          </ol>
        )}
        <NoteForm incidentId={props.incidentId} onAdded={reload} />
      </div>
    </Section>
  );
}

function NoteForm(props: { incidentId: string; onAdded: () => void }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!text.trim()) return;
    setBusy(true);
    setError(undefined);
    try {
      await api.post(`/api/v1/incidents/${props.incidentId}/timeline`, { text: text.trim() });
      setText('');
      props.onAdded();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="compose" onSubmit={submit}>
      <Field label="Add a note" hint="Goes on the timeline for everyone working the incident.">
        <textarea
          rows={2}
          maxLength={4000}
          value={text}
          data-testid="timeline-note"
          onInput={(event) => setText(inputValue(event))}
        />
      </Field>
      {error !== undefined && <ErrorNotice error={error} title="The note was not added" />}
      <button type="submit" class="btn primary" disabled={busy || !text.trim()} data-testid="add-note">
        {busy ? 'Adding…' : 'Add note'}
      </button>
    </form>
  );
}
