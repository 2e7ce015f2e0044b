import type { AgentSettingsRow, ApprovalDecisionRow, ApprovalRow } from './tables.ts';

const parse = (text: string | null) => (text === null ? null : (JSON.parse(text) as Record<string, unknown>));

export const toApproval = (row: ApprovalRow) => ({
  id: row.id,
  kind: row.kind,
  summary: row.summary,
  payload: parse(row.payload) ?? {},
  original_payload: parse(row.original_payload) ?? {},
  modified: row.payload !== row.original_payload,
  requested_by: row.requested_by,
  status: row.status,
  created_at: row.created_at,
  updated_at: row.updated_at,
  decided_at: row.decided_at,
  decided_by: row.decided_by,
  decision: row.decision,
  note: row.note,
  reason: row.reason,
  escalated_at: row.escalated_at,
  escalated_by: row.escalated_by,
  escalated_to: row.escalated_to,
});
export type Approval = ReturnType<typeof toApproval>;

export const toDecision = (row: ApprovalDecisionRow) => ({
  action: row.action,
  operator_id: row.operator_id,
  user_id: row.user_id,
  note: row.note,
  reason: row.reason,
  payload: parse(row.payload),
  escalated_to: row.escalated_to,
  at: row.at,
});

export const toSettings = (row: AgentSettingsRow | undefined) =>
  row
    ? {
        max_model_tier: row.max_model_tier,
        safety_level: row.safety_level,
        rate_limit_per_minute: row.rate_limit_per_minute,
        context_window_tokens: row.context_window_tokens,
        timeout_seconds: row.timeout_seconds,
        kill_switch: row.kill_switch === 1,
        updated_at: row.updated_at as string | null,
        updated_by: row.updated_by as string | null,
      }
    : { ...DEFAULT_AGENT_SETTINGS, updated_at: null, updated_by: null };
export type AgentSettings = ReturnType<typeof toSettings>;

/** Spec 3's defaults: tier T4, safety level 2, 1000 requests a minute, 100K tokens, 30 s, switch off. */
export const DEFAULT_AGENT_SETTINGS = {
  max_model_tier: 'T4' as AgentSettingsRow['max_model_tier'],
  safety_level: 2,
  rate_limit_per_minute: 1000,
  context_window_tokens: 100_000,
  timeout_seconds: 30,
  kill_switch: false,
};
