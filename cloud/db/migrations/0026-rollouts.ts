import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('rollouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('release_id', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('waves', 'text', (c) => c.notNull())
    .addColumn('current_wave', 'integer', (c) => c.notNull())
    .addColumn('soak_seconds', 'integer', (c) => c.notNull())
    .addColumn('soak_ends_at', 'text')
    .addColumn('window_start', 'text', (c) => c.notNull())
    .addColumn('window_end', 'text', (c) => c.notNull())
    .addColumn('allow_open_hours', 'integer', (c) => c.notNull())
    .addColumn('failure_threshold', 'double precision', (c) => c.notNull())
    .addColumn('max_failures', 'integer')
    .addColumn('notes', 'text')
    .addColumn('halted_reason', 'text')
    .addColumn('created_by', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('rollouts_list').on('rollouts').columns(['tenant_id', 'id']).execute();
  // The engine's look: rollouts still moving, across tenants.
  await db.schema.createIndex('rollouts_state').on('rollouts').columns(['state', 'id']).execute();
  await db.schema
    .createIndex('rollouts_idempotency')
    .on('rollouts')
    .columns(['tenant_id', 'idempotency_key'])
    .unique()
    .where(sql.ref('idempotency_key'), 'is not', null)
    .execute();

  await db.schema
    .createTable('rollout_stores')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('rollout_id', 'text', (c) => c.notNull().references('rollouts.id'))
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('wave', 'integer', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('progress', 'double precision', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('command_id', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('from_version', 'text')
    .addColumn('to_version', 'text', (c) => c.notNull())
    .addColumn('active', 'integer')
    .addColumn('dispatched_at', 'text')
    .addColumn('succeeded_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollout_stores_pk', ['rollout_id', 'location_id'])
    .execute();
  await db.schema
    .createIndex('rollout_stores_list')
    .on('rollout_stores')
    .columns(['tenant_id', 'rollout_id', 'position'])
    .execute();
  // A store takes part in one unfinished rollout at a time: two would race to install two versions.
  await db.schema
    .createIndex('rollout_stores_one_active')
    .on('rollout_stores')
    .columns(['tenant_id', 'location_id'])
    .unique()
    .where(sql.ref('active'), '=', 1)
    .execute();

  // Which rollout asked for an update, so the device's update status can name it.
  await db.schema.alterTable('device_commands').addColumn('rollout_id', 'text').execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.alterTable('device_commands').dropColumn('rollout_id').execute();
  await db.schema.dropTable('rollout_stores').execute();
  await db.schema.dropTable('rollouts').execute();
}
