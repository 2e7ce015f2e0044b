export interface Page {
  limit: number;
  cursor?: string | undefined;
}

/** A page of rows read one past the limit: the page, and the cursor to the next when there is one. */
export const paged = <T extends { id: string }>(rows: T[], limit: number) => ({
  page: rows.slice(0, limit),
  next_cursor: rows.length > limit ? rows[limit - 1]!.id : null,
});
