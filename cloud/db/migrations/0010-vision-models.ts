import { type Kysely, PostgresAdapter, sql } from 'kysely';

/** Bytes are a blob in SQLite and bytea in PostgreSQL: the one column type the two name apart. */
const binaryType = (db: Kysely<unknown>) =>
  db.getExecutor().adapter instanceof PostgresAdapter ? sql`bytea` : sql`blob`;

export async function up(db: Kysely<unknown>) {
  // A tenant's detection models by name (`vehicles`), and the version its appliances should run.
  await db.schema
    .createTable('vision_models')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('model_id', 'text', (c) => c.notNull())
    .addColumn('deploy_version', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('vision_models_pk', ['tenant_id', 'model_id'])
    .execute();

  await db.schema
    .createTable('vision_model_versions')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('model_id', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('manifest', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('file_id', 'text')
    .addColumn('size', 'bigint')
    .addColumn('chunk_size', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('uploaded_at', 'text')
    .addPrimaryKeyConstraint('vision_model_versions_pk', ['tenant_id', 'model_id', 'version'])
    .addForeignKeyConstraint('vision_model_versions_model', ['tenant_id', 'model_id'], 'vision_models', [
      'tenant_id',
      'model_id',
    ])
    .execute();

  // A version's bytes in pieces of `chunk_size`: uploads and downloads stream through them (no
  // whole model in memory), and a byte range reads only the pieces it covers. An upload writes
  // under a file id of its own and becomes the version's file only once its digest checked out.
  await db.schema
    .createTable('vision_model_chunks')
    .addColumn('file_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('model_id', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('bytes', binaryType(db), (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('vision_model_chunks_pk', ['file_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('vision_model_chunks_version')
    .on('vision_model_chunks')
    .columns(['tenant_id', 'model_id', 'version', 'file_id'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropTable('vision_model_chunks').execute();
  await db.schema.dropTable('vision_model_versions').execute();
  await db.schema.dropTable('vision_models').execute();
}
