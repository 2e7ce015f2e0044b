import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { PERIODS } from './metrics.ts';
import { APPROVAL_KINDS, APPROVAL_STATUSES, DECISION_ACTIONS, MODEL_TIERS } from './tables.ts';

/** The longest action time-out an operator can set (an execution older than this was interrupted). */
export const MAX_ACTION_TIMEOUT_SECONDS = 600;

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Literals = <T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
const Text = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) });
const Payload = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });
const OperatorId = { ...Uuid, description: 'the operator taking the decision, recorded with it' };

export const ApprovalParamsSchema = Type.Object({ id: Uuid });

export const ApprovalListQuerySchema = Type.Object(
  {
    status: Type.Optional(Literals(APPROVAL_STATUSES)),
    kind: Type.Optional(Literals(APPROVAL_KINDS)),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);

export const ApproveBodySchema = Type.Object(
  { note: Type.Optional(Text(2000, 'approve with note')), operator_id: OperatorId },
  { additionalProperties: false },
);
export const ModifyBodySchema = Type.Object(
  {
    payload: Payload('the payload as approved; replaces the submitted one (kept as original_payload)'),
    note: Type.Optional(Text(2000)),
    operator_id: OperatorId,
  },
  { additionalProperties: false },
);
export const RejectBodySchema = Type.Object(
  { reason: Text(2000, 'why it is refused (required)'), operator_id: OperatorId },
  { additionalProperties: false },
);
export const EscalateBodySchema = Type.Object(
  {
    reason: Type.Optional(Text(2000)),
    operator_id: OperatorId,
    to: Type.Optional(Text(200, 'who it goes to: a user id, a team or a role')),
  },
  { additionalProperties: false },
);

/**
 * An approval item ("not shown"). `payload` is what will be done; `original_payload` what
 * was submitted (they differ after modify-and-approve). `decided_*` and `decision` record the final
 * decision; `escalated_*` an escalation before it.
 */
export const ApprovalSchema = Type.Object({
  id: Uuid,
  kind: Literals(APPROVAL_KINDS),
  summary: Type.String(),
  payload: Payload('what is to be done'),
  original_payload: Payload('what was submitted'),
  modified: Type.Boolean({ description: 'an operator changed the payload when approving' }),
  requested_by: Type.String({ description: 'the agent, module or user that asked' }),
  status: Literals(APPROVAL_STATUSES),
  created_at: Timestamp,
  updated_at: Timestamp,
  decided_at: Nullable(Timestamp),
  decided_by: Nullable(Type.String({ description: 'operator_id of the final decision' })),
  decision: Nullable(Literals(DECISION_ACTIONS)),
  note: Nullable(Type.String()),
  reason: Nullable(Type.String({ description: 'a rejection’s (or escalation’s) reason' })),
  escalated_at: Nullable(Timestamp),
  escalated_by: Nullable(Type.String()),
  escalated_to: Nullable(Type.String()),
});

export const DecisionSchema = Type.Object({
  action: Literals(DECISION_ACTIONS),
  operator_id: Type.String(),
  user_id: Type.String({ description: 'the authenticated user who sent the decision' }),
  note: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  payload: Nullable(Payload('the modified payload')),
  escalated_to: Nullable(Type.String()),
  at: Timestamp,
});

export const ApprovalDetailSchema = Type.Composite([
  ApprovalSchema,
  Type.Object({ decisions: Type.Array(DecisionSchema) }),
]);

const SettingsFields = {
  max_model_tier: Literals(MODEL_TIERS, { description: 'the most capable model tier agents may use' }),
  safety_level: Type.Integer({
    minimum: 1,
    maximum: 5,
    description:
      '1–2: low and medium risk remediations may run unapproved where the environment allows; 3–4: only low risk; 5: every remediation needs approval',
  }),
  rate_limit_per_minute: Type.Integer({ minimum: 1, maximum: 100_000 }),
  context_window_tokens: Type.Integer({ minimum: 1000, maximum: 2_000_000 }),
  timeout_seconds: Type.Integer({
    minimum: 1,
    maximum: MAX_ACTION_TIMEOUT_SECONDS,
    description: 'an action’s time-out',
  }),
  kill_switch: Type.Boolean({ description: 'on: no agent action runs, automatic or manual' }),
};

export const AgentSettingsSchema = Type.Object({
  ...SettingsFields,
  updated_at: Nullable(Timestamp),
  updated_by: Nullable(Type.String()),
});

export const AgentSettingsBodySchema = Type.Object(
  {
    max_model_tier: Type.Optional(SettingsFields.max_model_tier),
    safety_level: Type.Optional(SettingsFields.safety_level),
    rate_limit_per_minute: Type.Optional(SettingsFields.rate_limit_per_minute),
    context_window_tokens: Type.Optional(SettingsFields.context_window_tokens),
    timeout_seconds: Type.Optional(SettingsFields.timeout_seconds),
    kill_switch: Type.Optional(SettingsFields.kill_switch),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type AgentSettingsBody = Static<typeof AgentSettingsBodySchema>;

export const MetricsQuerySchema = Type.Object(
  { period: Type.Optional(Literals(Object.keys(PERIODS) as (keyof typeof PERIODS)[])) },
  { additionalProperties: false },
);

const Counts = Type.Record(Type.String(), Type.Integer());
export const AiMetricsSchema = Type.Object({
  period: Type.String(),
  from: Timestamp,
  to: Timestamp,
  approvals: Type.Object({
    total: Type.Integer(),
    by_status: Counts,
    by_kind: Counts,
    decided: Type.Integer(),
    median_time_to_decision_seconds: Nullable(Type.Number()),
  }),
  remediation: Type.Optional(
    Type.Object({
      requested: Type.Integer({ description: 'remediations asked for, dry runs excluded' }),
      auto_approved: Type.Integer(),
      approval_required: Type.Integer(),
      dry_runs: Type.Integer(),
      executions: Type.Array(
        Type.Object({ action: Type.String(), outcome: Type.String(), count: Type.Integer() }),
      ),
      success_rate: Nullable(Type.Number({ description: 'executed / (executed + failed + timed_out)' })),
      mean_execution_time_ms: Nullable(Type.Number()),
      refusals: Counts,
      rate_limit_refusals: Type.Integer(),
    }),
  ),
});
