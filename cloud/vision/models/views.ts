import type { EdgeCommand } from './edges.ts';
import type { SyncModel, SyncState, SyncStatus } from './schemas.ts';
import type { VisionModelRow, VisionModelVersionRow } from './tables.ts';

export const toVersion = (row: VisionModelVersionRow, deployVersion: string | null) => ({
  model_id: row.model_id,
  version: row.version,
  state: row.state,
  sha256: row.sha256,
  size: row.size,
  deployed: row.version === deployVersion,
  created_at: row.created_at,
  uploaded_at: row.uploaded_at,
});
export type Version = ReturnType<typeof toVersion>;

export const toVersionDetail = (row: VisionModelVersionRow, deployVersion: string | null) => ({
  ...toVersion(row, deployVersion),
  manifest: JSON.parse(row.manifest) as Record<string, unknown>,
});

export const toModel = (row: VisionModelRow, versions: VisionModelVersionRow[]) => ({
  model_id: row.model_id,
  deploy_version: row.deploy_version,
  versions: versions.map((version) => toVersion(version, row.deploy_version)),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

interface ModelResult {
  name: string;
  version: string;
  status: 'installed' | 'unchanged' | 'failed';
  reason?: string;
}

const isModelResult = (value: unknown): value is ModelResult => {
  const result = value as Partial<ModelResult> | null;
  return (
    typeof result?.name === 'string' &&
    typeof result.version === 'string' &&
    ['installed', 'unchanged', 'failed'].includes(result.status as string)
  );
};

const FINAL: Record<string, SyncStatus> = { failed: 'failed', expired: 'expired', cancelled: 'cancelled' };

/** The models' results judged as a whole. */
function outcome(results: Array<{ status: string }>): SyncStatus {
  const failed = results.filter((result) => result.status === 'failed').length;
  if (failed === 0) return 'succeeded';
  return failed === results.length ? 'failed' : 'partially_failed';
}

/** A model sync as the registry's command row tells it: its state, progress and each model's result. */
export function toSyncState(edgeId: string, command: EdgeCommand): SyncState {
  const asked = Array.isArray(command.payload.models) ? (command.payload.models as SyncModel[]) : [];
  const reported = Array.isArray(command.result?.models)
    ? (command.result.models as unknown[]).filter(isModelResult)
    : [];
  const ended = command.state === 'succeeded' || command.state in FINAL;
  const reason = typeof command.result?.reason === 'string' ? command.result.reason : null;
  const models = asked.map((model) => {
    const result = reported.find((r) => r.name === model.name && r.version === model.version);
    if (result)
      return {
        model_id: model.name,
        version: model.version,
        status: result.status,
        reason: result.reason ?? null,
      };
    if (!ended)
      return { model_id: model.name, version: model.version, status: 'pending' as const, reason: null };
    const why = command.state === 'succeeded' ? 'the appliance did not report this model' : command.state;
    return { model_id: model.name, version: model.version, status: 'failed' as const, reason: reason ?? why };
  });
  const status: SyncStatus =
    command.state === 'succeeded'
      ? outcome(models)
      : (FINAL[command.state] ?? (command.state === 'acknowledged' ? 'in_progress' : 'pending'));
  const progress = typeof command.result?.progress === 'number' ? command.result.progress : null;
  return {
    command_id: command.command_id,
    edge_id: edgeId,
    status,
    progress: command.state === 'succeeded' ? 1 : progress,
    models,
    reason: status === 'succeeded' ? null : reason,
    created_at: command.created_at,
    updated_at: command.updated_at,
    expires_at: command.expires_at,
  };
}
