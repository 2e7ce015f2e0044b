/** The tenant's rollouts, newest first, each with its progress and, opened, its stores. */
import { useState } from 'preact/hooks';
import { query } from '../../api.ts';
import {
  Empty,
  ErrorNotice,
  Field,
  inputValue,
  Loading,
  Pager,
  Pill,
  ProgressBar,
  Section,
} from '../../components/ui.tsx';
import { formatDateTime, formatNumber } from '../../format.ts';
import { nextCursorOf, useCursorPages, useLive, useResource } from '../../hooks.ts';
import { useSearch } from '../../router.ts';
import { api } from '../../session.ts';
import { useCanManageDevices } from './access.ts';
import { ROLLOUT_LABELS } from './labels.ts';
import { actionsFor, type RolloutAction, RolloutActionDialog } from './rollout-actions.tsx';
import { RolloutStores } from './rollout-stores.tsx';
import type { Stores } from './stores.ts';
import type { ListAnswer, Rollout, RolloutState } from './types.ts';

const PAGE_SIZE = 20;
const ACTION_LABELS: Record<RolloutAction, string> = {
  pause: 'Pause',
  resume: 'Resume',
  retry: 'Retry failed',
  abort: 'Abort',
};

function Progress({ rollout }: { rollout: Rollout }) {
  const { healthy, failed, rolled_back } = rollout.counts;
  const tone = rollout.state === 'halted' ? 'bad' : rollout.state === 'completed' ? 'ok' : undefined;
  const troubled = failed + rolled_back;
  return (
    <div class="dev-rollout-progress" data-testid="rollout-progress">
      <ProgressBar
        label={`Stores on ${rollout.version}`}
        value={rollout.stores ? healthy / rollout.stores : 0}
        tone={tone}
      />
      <span class="small">
        {formatNumber(healthy)} of {formatNumber(rollout.stores)} healthy
        {troubled > 0 && <span class="error-text"> · {formatNumber(troubled)} failed or rolled back</span>}
      </span>
    </div>
  );
}

function RolloutRow(props: {
  rollout: Rollout;
  open: boolean;
  onToggle: () => void;
  onAction: (a: RolloutAction) => void;
}) {
  const manage = useCanManageDevices();
  const { rollout } = props;
  const state = ROLLOUT_LABELS[rollout.state];
  return (
    <tr data-testid="rollout-row" data-rollout-id={rollout.id}>
      <td>
        <strong>{rollout.version}</strong>
        {rollout.notes && <div class="muted small">{rollout.notes}</div>}
      </td>
      <td>
        <Pill tone={state.tone}>{state.label}</Pill>
        {rollout.halted_reason && <div class="small error-text">{rollout.halted_reason}</div>}
      </td>
      <td>
        <Progress rollout={rollout} />
      </td>
      <td class="num">
        {rollout.current_wave} of {rollout.waves.length}
      </td>
      <td>
        {rollout.window.start}–{rollout.window.end}
        <div class="muted small">store time</div>
      </td>
      <td>{formatDateTime(rollout.created_at)}</td>
      <td class="dev-actions">
        <button
          type="button"
          class="btn small"
          aria-expanded={props.open}
          aria-controls={`rollout-stores-${rollout.id}`}
          onClick={props.onToggle}
        >
          {props.open ? 'Hide stores' : 'Stores'}
        </button>
        {(manage ? actionsFor(rollout) : []).map((action) => (
          <button
            key={action}
            type="button"
            class={`btn small ${action === 'abort' ? 'dev-danger' : ''}`}
            data-testid={`rollout-${action}`}
            aria-label={`${ACTION_LABELS[action]}: rollout of ${rollout.version}`}
            onClick={() => props.onAction(action)}
          >
            {ACTION_LABELS[action]}
          </button>
        ))}
      </td>
    </tr>
  );
}

function StateFilter() {
  const [search, setSearch] = useSearch();
  return (
    <Field label="Rollout state">
      <select
        value={search.get('rollout_state') ?? ''}
        onChange={(e) => setSearch({ rollout_state: inputValue(e) })}
      >
        <option value="">Any state</option>
        {(Object.keys(ROLLOUT_LABELS) as RolloutState[]).map((state) => (
          <option key={state} value={state}>
            {ROLLOUT_LABELS[state].label}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The opened rollout's stores, under the table: the URL's `rollout` names it. */
function OpenRollout(props: { rollouts: Rollout[]; stores: Stores }) {
  const [search, setSearch] = useSearch();
  const rollout = props.rollouts.find((r) => r.id === search.get('rollout'));
  if (!rollout) return null;
  return (
    <div class="dev-rollout-panel" id={`rollout-stores-${rollout.id}`}>
      <div class="dev-panel-head">
        <h3>Stores of the rollout of {rollout.version}</h3>
        <button type="button" class="btn small" onClick={() => setSearch({ rollout: '' })}>
          Close
        </button>
      </div>
      <RolloutStores rolloutId={rollout.id} version={rollout.version} stores={props.stores} />
    </div>
  );
}

function RolloutTable(props: { rollouts: Rollout[]; onAction: (r: Rollout, a: RolloutAction) => void }) {
  const [search, setSearch] = useSearch();
  const open = search.get('rollout');
  return (
    <div class="table-wrap">
      <table class="table" data-testid="rollouts-table">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">State</th>
            <th scope="col">Progress</th>
            <th scope="col" class="num">
              Wave
            </th>
            <th scope="col">Window</th>
            <th scope="col">Started</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.rollouts.map((rollout) => (
            <RolloutRow
              key={rollout.id}
              rollout={rollout}
              open={open === rollout.id}
              onToggle={() => setSearch({ rollout: open === rollout.id ? '' : rollout.id })}
              onAction={(action) => props.onAction(rollout, action)}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function RolloutsSection(props: { stores: Stores }) {
  const [search] = useSearch();
  const state = search.get('rollout_state');
  const pages = useCursorPages(state ?? '');
  const list = useResource(
    (signal) =>
      api.get<ListAnswer<Rollout>>(
        `/v1/mdm/rollouts${query({ state, limit: PAGE_SIZE, cursor: pages.cursor })}`,
        signal,
      ),
    [state, pages.cursor],
  );
  useLive(list.reload, ['rollout', 'store'], 5_000);
  const [acting, setActing] = useState<{ rollout: Rollout; action: RolloutAction }>();
  const rollouts = list.data?.data ?? [];
  const next = nextCursorOf(list.data);
  return (
    <Section title="Rollouts" actions={<StateFilter />}>
      {list.error !== undefined && (
        <ErrorNotice error={list.error} onRetry={list.reload} title="The rollouts could not be loaded" />
      )}
      {list.data === undefined && list.loading && <Loading label="Loading rollouts…" />}
      {list.data !== undefined && rollouts.length === 0 && (
        <Empty
          title={
            state
              ? `No ${ROLLOUT_LABELS[state as RolloutState]?.label.toLowerCase() ?? ''} rollouts`
              : 'No rollouts yet'
          }
        >
          {state
            ? 'Choose another state to see other rollouts.'
            : 'A rollout sends a release to the stores in waves. Start one through the API (POST /v1/mdm/rollouts) with a release listed above; it shows here as it runs.'}
        </Empty>
      )}
      {rollouts.length > 0 && (
        <RolloutTable rollouts={rollouts} onAction={(rollout, action) => setActing({ rollout, action })} />
      )}
      <Pager
        hasPrevious={pages.hasPrevious}
        hasNext={next !== null}
        onPrevious={pages.previous}
        onNext={() => next && pages.next(next)}
      />
      <OpenRollout rollouts={rollouts} stores={props.stores} />
      {acting && (
        <RolloutActionDialog
          rollout={acting.rollout}
          action={acting.action}
          onClose={() => {
            setActing(undefined);
            list.reload();
          }}
        />
      )}
    </Section>
  );
}
