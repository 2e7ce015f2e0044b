import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('oncall_schedules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('team', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('handoff_time', 'text', (c) => c.notNull())
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('shift_hours', 'integer')
    .addColumn('participants', 'text', (c) => c.notNull())
    .addColumn('regions', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A team has one schedule: alerting and GET /schedule/{team} look it up by name. Also the list's order.
  await db.schema
    .createIndex('oncall_schedules_team')
    .on('oncall_schedules')
    .columns(['tenant_id', 'team'])
    .unique()
    .execute();

  await db.schema
    .createTable('oncall_overrides')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('schedule_id', 'text', (c) =>
      c.notNull().references('oncall_schedules.id').onDelete('cascade'),
    )
    .addColumn('slot', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('person', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .execute();
  // Who is on call reads the overrides of a schedule that have not ended.
  await db.schema
    .createIndex('oncall_overrides_schedule')
    .on('oncall_overrides')
    .columns(['tenant_id', 'schedule_id', 'ends_at'])
    .execute();
  await db.schema
    .createIndex('oncall_overrides_list')
    .on('oncall_overrides')
    .columns(['tenant_id', 'schedule_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropTable('oncall_overrides').execute();
  await db.schema.dropTable('oncall_schedules').execute();
}
