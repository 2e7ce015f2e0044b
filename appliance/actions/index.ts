/**
 * Long actions under way on this appliance (a model download, an update, a big sync, a device
 * restart), so the people at the store can watch them move: the fleet link and the kiosk's own
 * routes report into it, the kiosk feed shows it. Kept in memory: after a restart nothing is
 * under way any more, and each action's outcome is recorded by its own module.
 */
import type { Clock } from '../../shared/clock.ts';

export type ActionState = 'running' | 'succeeded' | 'failed';

export interface Action {
  id: string;
  kind: string;
  label: string;
  state: ActionState;
  /** 0 to 100, or null while the action cannot tell how far it is. */
  progress_pct: number | null;
  detail: string | null;
  started_at: string;
  finished_at: string | null;
}

/** How long a finished action stays on the board, so a glance after it ended still sees how. */
const KEEP_FINISHED_MS = 60_000;

export function createActionBoard(clock: Clock) {
  const actions = new Map<string, Action & { finishedAtMs?: number }>();
  let version = 0;

  function update(id: string, change: Partial<Action>) {
    const action = actions.get(id);
    if (!action) return;
    Object.assign(action, change);
    version++;
  }

  function prune() {
    const now = clock.now().getTime();
    for (const [id, action] of actions)
      if (action.finishedAtMs !== undefined && now - action.finishedAtMs > KEEP_FINISHED_MS) {
        actions.delete(id);
        version++;
      }
  }

  return {
    start(id: string, kind: string, label: string) {
      const at = clock.now().toISOString();
      actions.set(id, {
        id,
        kind,
        label,
        state: 'running',
        progress_pct: null,
        detail: null,
        started_at: at,
        finished_at: null,
      });
      version++;
    },
    progress(id: string, fraction: number, detail?: string) {
      const pct = Math.round(Math.min(1, Math.max(0, fraction)) * 100);
      const action = actions.get(id);
      if (!action || (action.progress_pct === pct && detail === undefined)) return;
      update(id, { progress_pct: pct, ...(detail !== undefined ? { detail } : {}) });
    },
    finish(id: string, state: Exclude<ActionState, 'running'>, detail: string | null = null) {
      const now = clock.now();
      update(id, {
        state,
        detail,
        finished_at: now.toISOString(),
        ...(state === 'succeeded' ? { progress_pct: 100 } : {}),
      });
      const action = actions.get(id);
      if (action) action.finishedAtMs = now.getTime();
    },
    has: (id: string) => actions.has(id),
    /** Running ones first, then the recently finished, each group oldest first. */
    list(): Action[] {
      prune();
      return [...actions.values()]
        .map(({ finishedAtMs: _, ...action }) => action)
        .sort((a, b) => Number(a.state !== 'running') - Number(b.state !== 'running'));
    },
    /** Changes whenever the board does: a cheap "anything new?" for pollers. */
    get version() {
      prune();
      return version;
    },
  };
}

export type ActionBoard = ReturnType<typeof createActionBoard>;
