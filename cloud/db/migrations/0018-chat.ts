import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('chat_channels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('topic', 'text')
    .addColumn('brand_id', 'text')
    .addColumn('location_id', 'text')
    .addColumn('department', 'text')
    .addColumn('incident_id', 'text')
    .addColumn('direct_key', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_message_at', 'text')
    .execute();
  // Creating an incident's channel twice (a retried flow, two replicas) yields one channel.
  await db.schema
    .createIndex('chat_channels_incident')
    .on('chat_channels')
    .columns(['tenant_id', 'incident_id'])
    .unique()
    .where(sql.ref('incident_id'), 'is not', null)
    .execute();
  // One direct channel per pair of people.
  await db.schema
    .createIndex('chat_channels_direct')
    .on('chat_channels')
    .columns(['tenant_id', 'direct_key'])
    .unique()
    .where(sql.ref('direct_key'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('chat_channels_list')
    .on('chat_channels')
    .columns(['tenant_id', 'type', 'id'])
    .execute();

  await db.schema
    .createTable('chat_members')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull().references('chat_channels.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('joined_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_members_pk', ['channel_id', 'user_id'])
    .execute();
  // A person's channels (the channel list, presence contacts).
  await db.schema
    .createIndex('chat_members_user')
    .on('chat_members')
    .columns(['tenant_id', 'user_id', 'channel_id'])
    .execute();

  await db.schema
    .createTable('chat_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull().references('chat_channels.id').onDelete('cascade'))
    .addColumn('thread_id', 'text')
    .addColumn('author_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('attachments', 'text', (c) => c.notNull())
    .addColumn('reply_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_reply_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // A channel's pages (top level: thread_id null) and a thread's pages, newest first by id.
  await db.schema
    .createIndex('chat_messages_page')
    .on('chat_messages')
    .columns(['tenant_id', 'channel_id', 'thread_id', 'id'])
    .execute();
  // The retention sweep.
  await db.schema.createIndex('chat_messages_age').on('chat_messages').columns(['created_at']).execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropTable('chat_messages').execute();
  await db.schema.dropTable('chat_members').execute();
  await db.schema.dropTable('chat_channels').execute();
}
