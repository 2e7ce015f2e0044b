/** Cursor pages: the cursors of the pages before this one, dropped whenever the filters change. */
import { useState } from 'preact/hooks';
import type { ListAnswer } from './types.ts';

export function useCursorPages(filtersKey: string) {
  const [state, setState] = useState<{ key: string; cursors: string[] }>({ key: filtersKey, cursors: [] });
  const cursors = state.key === filtersKey ? state.cursors : [];
  return {
    cursor: cursors.at(-1),
    page: cursors.length + 1,
    hasPrevious: cursors.length > 0,
    next: (cursor: string) => setState({ key: filtersKey, cursors: [...cursors, cursor] }),
    previous: () => setState({ key: filtersKey, cursors: cursors.slice(0, -1) }),
  };
}

export const nextCursorOf = (answer: ListAnswer<unknown> | undefined) =>
  answer?.meta?.pagination?.next_cursor ?? null;
