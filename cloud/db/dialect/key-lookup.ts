/**
 * Rows of `table` whose `keyColumn` is one of `keys`, narrowed by equal columns in `where`. The
 * table needs an index led by `keyColumn`.
 */
export interface KeyLookup {
  table: string;
  keyColumn: string;
  keys: string[];
  where: Record<string, string>;
  /** PostgreSQL: lock the rows found until the transaction ends. */
  forUpdate?: boolean;
}
