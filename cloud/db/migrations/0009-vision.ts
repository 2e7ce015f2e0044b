import type { Kysely } from 'kysely';

/** The stores' synced vision rows as the cloud answers from them, and the settings it asked for. */
export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('vision_cameras')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('fps', 'double precision', (c) => c.notNull())
    .addColumn('last_detection', 'text')
    .addColumn('zones', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('vision_cameras_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('vision_cameras_location')
    .on('vision_cameras')
    .columns(['tenant_id', 'location_id', 'id'])
    .execute();

  await db.schema
    .createTable('vision_detections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('camera_id', 'text', (c) => c.notNull())
    .addColumn('track_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('confidence', 'double precision', (c) => c.notNull())
    .addColumn('box', 'text', (c) => c.notNull())
    .addColumn('detected_at', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'text')
    .execute();
  // A camera's detections newest first, page by page.
  await db.schema
    .createIndex('vision_detections_camera')
    .on('vision_detections')
    .columns(['tenant_id', 'camera_id', 'detected_at', 'id'])
    .execute();

  await db.schema
    .createTable('vision_tracks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('camera_id', 'text', (c) => c.notNull())
    .addColumn('entered_at', 'text', (c) => c.notNull())
    .addColumn('left_at', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text')
    .addColumn('pulled_forward', 'integer', (c) => c.notNull())
    .addColumn('times', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('vision_tracks_left')
    .on('vision_tracks')
    .columns(['tenant_id', 'left_at', 'id'])
    .execute();
  await db.schema
    .createIndex('vision_tracks_camera')
    .on('vision_tracks')
    .columns(['tenant_id', 'camera_id', 'left_at', 'id'])
    .execute();

  await db.schema
    .createTable('vision_verifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('camera_id', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('verified', 'integer', (c) => c.notNull())
    .addColumn('detections', 'text', (c) => c.notNull())
    .addColumn('missing_items', 'text', (c) => c.notNull())
    .addColumn('extra_items', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('vision_verifications_order')
    .on('vision_verifications')
    .columns(['tenant_id', 'order_id', 'camera_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('vision_model_minutes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('camera_id', 'text', (c) => c.notNull())
    .addColumn('model_id', 'text', (c) => c.notNull())
    .addColumn('model_version', 'text', (c) => c.notNull())
    .addColumn('minute', 'text', (c) => c.notNull())
    .addColumn('frames_read', 'integer', (c) => c.notNull())
    .addColumn('frames_inferred', 'integer', (c) => c.notNull())
    .addColumn('frames_skipped', 'integer', (c) => c.notNull())
    .addColumn('frames_dropped', 'integer', (c) => c.notNull())
    .addColumn('detections', 'integer', (c) => c.notNull())
    .addColumn('camera_fps', 'double precision')
    .addColumn('detection_fps', 'double precision')
    .addColumn('inference_p50', 'double precision')
    .addColumn('inference_p99', 'double precision')
    .addColumn('inference_mean', 'double precision')
    .addColumn('capture_p50', 'double precision')
    .addColumn('capture_p95', 'double precision')
    .addColumn('capture_p99', 'double precision')
    .execute();
  await db.schema
    .createIndex('vision_model_minutes_model')
    .on('vision_model_minutes')
    .columns(['tenant_id', 'model_id', 'minute'])
    .execute();

  await db.schema
    .createTable('vision_lanes')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('camera_id', 'text', (c) => c.notNull())
    .addColumn('queue_length', 'integer', (c) => c.notNull())
    .addColumn('estimated_wait_seconds', 'integer', (c) => c.notNull())
    .addColumn('orders_per_hour', 'double precision', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('cars', 'text', (c) => c.notNull())
    .addColumn('counts', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('vision_lanes_pk', ['tenant_id', 'camera_id'])
    .execute();

  await db.schema
    .createTable('vision_occupancy')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'text', (c) => c.notNull())
    .addColumn('dining_room', 'text', (c) => c.notNull())
    .addColumn('parking', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('vision_occupancy_pk', ['tenant_id', 'location_id'])
    .execute();

  await db.schema
    .createTable('vision_desired_settings')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('section', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('command_id', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .addColumn('confirmed', 'text')
    .addColumn('confirmed_at', 'text')
    .addPrimaryKeyConstraint('vision_desired_settings_pk', ['tenant_id', 'section', 'target'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  for (const table of [
    'vision_desired_settings',
    'vision_occupancy',
    'vision_lanes',
    'vision_model_minutes',
    'vision_verifications',
    'vision_tracks',
    'vision_detections',
    'vision_cameras',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
