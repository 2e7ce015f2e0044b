/**
 * Group commit for pushes: the pushes of one store that arrive while one of its transactions is
 * running are applied together in the next transaction, each inside a savepoint of its own, so
 * several batches share one commit (one fsync). A push that fails rolls back to its savepoint
 * alone; the others commit. Keyed by store, so one store's backlog never holds up another's pushes.
 * The mechanism is the store's (cloud/db/group-commit.ts), shared with other group-committed writes.
 */
export { createGroupCommit, type GroupCommitOptions } from '../db/index.ts';
