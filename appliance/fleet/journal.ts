import type { AckState, FleetCommand } from '../../shared/devices/fleet-protocol.ts';
import type { ApplianceDatabase } from '../db/index.ts';

export interface JournalEntry {
  id: string;
  kind: string;
  device_id: string | null;
  state: AckState;
  received_at: string;
  finished_at: string | null;
  result: string | null;
  reason: string | null;
}

/** The appliance's record of fleet commands: what it took on, and how each ended. */
export function createCommandJournal(db: ApplianceDatabase) {
  const find = db.prepare<[string], JournalEntry>('select * from fleet_commands where id = ?');
  const insert = db.prepare(
    `insert into fleet_commands (id, kind, device_id, state, received_at)
     values (@id, @kind, @device_id, @state, @received_at) on conflict (id) do nothing`,
  );
  const finish = db.prepare(
    `update fleet_commands set state = @state, finished_at = @at, result = @result, reason = @reason
     where id = @id and finished_at is null`,
  );
  const open = db.prepare<[], JournalEntry>(
    'select * from fleet_commands where finished_at is null order by received_at',
  );

  return {
    find: (id: string) => find.get(id),
    /** True when the command is new here (and now recorded as taken on). */
    take(command: FleetCommand, state: AckState, at: string) {
      return (
        insert.run({
          id: command.id,
          kind: command.kind,
          device_id: command.device_id ?? null,
          state,
          received_at: at,
        }).changes === 1
      );
    },
    finish(id: string, state: AckState, at: string, result?: Record<string, unknown>, reason?: string) {
      finish.run({ id, state, at, result: result ? JSON.stringify(result) : null, reason: reason ?? null });
    },
    /** Commands taken on and never finished: the process stopped while they ran. */
    unfinished: () => open.all(),
  };
}

export type CommandJournal = ReturnType<typeof createCommandJournal>;
