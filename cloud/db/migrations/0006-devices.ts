import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>) {
  // One row: the device CA every gateway replica signs with.
  await db.schema
    .createTable('device_ca')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('certificate_pem', 'text', (c) => c.notNull())
    .addColumn('private_key_pem', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('devices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('device_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('serial_number', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('firmware_version', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text')
    .addColumn('enrolled_at', 'text')
    .addColumn('enrollment_token_digest', 'text')
    .addColumn('enrollment_token_expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A token is looked up by its digest alone: the enrolling device has no other credential.
  await db.schema
    .createIndex('devices_enrollment_token')
    .on('devices')
    .column('enrollment_token_digest')
    .unique()
    .execute();
  // A piece of hardware is registered once per tenant; a revoked device frees its serial number.
  await db.schema
    .createIndex('devices_serial_number')
    .on('devices')
    .columns(['tenant_id', 'serial_number'])
    .unique()
    .where(sql<boolean>`state <> 'revoked'`)
    .execute();
  await db.schema
    .createIndex('devices_location')
    .on('devices')
    .columns(['tenant_id', 'location_id'])
    .execute();

  await db.schema
    .createTable('device_certificates')
    .addColumn('serial', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text', (c) => c.notNull().references('devices.id'))
    .addColumn('public_key_sha256', 'text', (c) => c.notNull())
    .addColumn('certificate_pem', 'text', (c) => c.notNull())
    .addColumn('not_before', 'text', (c) => c.notNull())
    .addColumn('not_after', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('revocation_reason', 'text')
    .addColumn('replaced_by', 'text')
    .execute();
  await db.schema
    .createIndex('device_certificates_expiry')
    .on('device_certificates')
    .columns(['tenant_id', 'not_after', 'serial'])
    .execute();
  await db.schema
    .createIndex('device_certificates_device')
    .on('device_certificates')
    .columns(['device_id', 'not_after'])
    .execute();
  // The revocation list and the CRL read only revoked rows.
  await db.schema
    .createIndex('device_certificates_revoked')
    .on('device_certificates')
    .column('revoked_at')
    .where(sql.ref('revoked_at'), 'is not', null)
    .execute();

  await db.schema
    .createTable('device_commands')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text', (c) => c.notNull().references('devices.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('acked_at', 'text')
    .addColumn('result', 'text')
    .execute();
  await db.schema
    .createIndex('device_commands_device')
    .on('device_commands')
    .columns(['tenant_id', 'device_id', 'kind', 'id'])
    .execute();

  await db.schema
    .createTable('device_telemetry')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('metrics', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('device_telemetry_device')
    .on('device_telemetry')
    .columns(['tenant_id', 'device_id', 'at'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  for (const table of [
    'device_telemetry',
    'device_commands',
    'device_certificates',
    'devices',
    'device_ca',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
