import { useState } from 'preact/hooks';

/**
 * Keyset pages: the cursors of the pages walked so far, so Previous goes back exactly; a change of
 * `key` (the filters) starts again at the first page.
 */
export function useCursorPages(key: string) {
  const [state, setState] = useState<{ key: string; cursors: Array<string | null> }>({
    key,
    cursors: [null],
  });
  const cursors = state.key === key ? state.cursors : [null];
  return {
    cursor: cursors[cursors.length - 1] ?? null,
    page: cursors.length,
    hasPrevious: cursors.length > 1,
    next: (cursor: string) => setState({ key, cursors: [...cursors, cursor] }),
    previous: () => setState({ key, cursors: cursors.slice(0, -1) }),
  };
}
