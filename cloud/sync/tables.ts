export interface SyncApplianceRow {
  id: string;
  tenant_id: string;
  location_id: string;
  name: string;
  secret_digest: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
}

export interface SyncLocationRow {
  tenant_id: string;
  location_id: string;
  last_seq: number;
  /** Feed entries at or below this seq have been pruned: a cursor below it must start over. */
  feed_floor: number;
  last_push_at: string | null;
  last_pull_at: string | null;
  last_seen_at: string | null;
  pulled_cursor: number;
  queue_depth: number;
  oldest_pending_at: string | null;
  trigger_requested_at: string | null;
  trigger_priority: string | null;
}

export interface SyncRowRow {
  tenant_id: string;
  location_id: string;
  /** `<table>/<row id>`: one column to index and to look up in batches. */
  row_key: string;
  table_name: string;
  row_id: string;
  version: number;
  deleted: number;
  hlc: string;
  /** JSON object, or null for a deleted row. */
  fields: string | null;
  /** Merge tables: the Yjs state, base64. */
  doc: string | null;
  updated_at: string;
}

export interface SyncFeedRow {
  tenant_id: string;
  location_id: string;
  seq: number;
  table_name: string;
  row_id: string;
  version: number;
  deleted: number;
  hlc: string;
  fields: string | null;
  doc: string | null;
  created_at: string;
}

export type ChangeStatus = 'applied' | 'conflict' | 'rejected';

export interface SyncChangeRow {
  tenant_id: string;
  location_id: string;
  change_id: string;
  row_key: string;
  digest: string;
  status: ChangeStatus;
  reason: string | null;
  received_at: string;
}

export interface SyncConflictRow {
  id: string;
  tenant_id: string;
  location_id: string;
  table_name: string;
  row_id: string;
  change_id: string;
  client_base_version: number;
  client_version: number;
  server_version: number;
  client_fields: string | null;
  server_fields: string | null;
  occurred_at: string;
}

export interface SyncTables {
  sync_appliances: SyncApplianceRow;
  sync_locations: SyncLocationRow;
  sync_rows: SyncRowRow;
  sync_feed: SyncFeedRow;
  sync_changes: SyncChangeRow;
  sync_conflicts: SyncConflictRow;
}
