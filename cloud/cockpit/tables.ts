import type { RemediationTables } from '../remediation/index.ts';

/** What triggers an approval (the triggers by agent kind), plus our own remediations. */
export const APPROVAL_KINDS = [
  'transaction',
  'refund',
  'account_change',
  'data_deletion',
  'overtime',
  'shift_cancellation',
  'campaign_budget',
  'content_publish',
  'complex_complaint',
  'legal_request',
  'remediation',
] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/**
 * `pending` when submitted; `approved` or `rejected` for good; `escalated` hands it to someone
 * more senior, who may still approve or reject it (but not escalate it again).
 */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'escalated'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const DECISION_ACTIONS = ['approve', 'approve_with_note', 'modify', 'reject', 'escalate'] as const;
export type DecisionAction = (typeof DECISION_ACTIONS)[number];

export interface ApprovalRow {
  id: string;
  tenant_id: string;
  kind: ApprovalKind;
  summary: string;
  /** JSON object: what is to be done (after a modification, what was approved). */
  payload: string;
  /** JSON object as submitted; differs from payload once an operator modified it. */
  original_payload: string;
  /** Who or what asked: an agent name, `remediation`, a user id. */
  requested_by: string;
  status: ApprovalStatus;
  created_at: string;
  updated_at: string;
  /** The final decision (approve/reject); null while pending or escalated. */
  decided_at: string | null;
  decided_by: string | null;
  decision: DecisionAction | null;
  note: string | null;
  reason: string | null;
  escalated_at: string | null;
  escalated_by: string | null;
  escalated_to: string | null;
}

/** Every decision taken on an item, in order: who, when, what, and the request's fingerprint. */
export interface ApprovalDecisionRow {
  id: string;
  tenant_id: string;
  approval_id: string;
  action: DecisionAction;
  operator_id: string;
  /** The authenticated user who sent it. */
  user_id: string;
  note: string | null;
  reason: string | null;
  payload: string | null;
  escalated_to: string | null;
  /** sha256 of the request (action and body): a retry of the same request is recognised. */
  request_hash: string;
  at: string;
}

export const MODEL_TIERS = ['T1', 'T2', 'T3', 'T4', 'T5'] as const;
export type ModelTier = (typeof MODEL_TIERS)[number];

export interface AgentSettingsRow {
  tenant_id: string;
  max_model_tier: ModelTier;
  safety_level: number;
  rate_limit_per_minute: number;
  context_window_tokens: number;
  timeout_seconds: number;
  kill_switch: number;
  updated_at: string;
  updated_by: string;
}

export interface CockpitTables extends RemediationTables {
  cockpit_approvals: ApprovalRow;
  cockpit_approval_decisions: ApprovalDecisionRow;
  cockpit_agent_settings: AgentSettingsRow;
}
