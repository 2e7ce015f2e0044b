import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ACTION_NAMES } from './actions.ts';
import { REMEDIATION_STATUSES, RISKS } from './tables.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Literals = <T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

export const RemediateBodySchema = Type.Object(
  {
    alert_id: Type.String({ minLength: 1, maxLength: 64, description: 'the alert to remediate' }),
    action: Literals(ACTION_NAMES, {
      description:
        'restart_service, clear_cache, rotate_logs (low risk), scale_up (medium), scale_down, failover, database_query (high)',
    }),
    parameters: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'the action’s parameters, e.g. {service} for restart_service, {replicas} for scaling',
      }),
    ),
    dry_run: Type.Optional(Type.Boolean({ default: false, description: 'run the checks only' })),
  },
  { additionalProperties: false },
);
export type RemediateBody = Static<typeof RemediateBodySchema>;

export const RemediateHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'a retry with the same key answers the same record',
    }),
  ),
});

export const RemediationListQuerySchema = Type.Object(
  {
    status: Type.Optional(Literals(REMEDIATION_STATUSES)),
    alert_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);

export const RemediationParamsSchema = Type.Object({ id: Uuid });

const SafetyCheckSchema = Type.Object({
  check: Type.String({
    description:
      'kill_switch, executor, target_exists, agent_rate_limit, rate_limit, risk_approval, operator_approval, dry_run',
  }),
  passed: Type.Boolean(),
  auto_approved: Type.Optional(Type.Boolean()),
  detail: Type.String(),
});

/** Spec 3's remediation record (alert_id, action, runbook, status, result, safety_checks) and context. */
export const RemediationSchema = Type.Object({
  id: Uuid,
  alert_id: Type.String(),
  action: Type.String(),
  risk: Literals(RISKS),
  parameters: Type.Record(Type.String(), Type.Unknown()),
  environment: Nullable(Type.String()),
  target: Nullable(Type.String({ description: 'device:<id> or location:<id> for the fleet actions' })),
  runbook: Nullable(Type.String({ description: 'the alert’s runbook_url' })),
  status: Literals(REMEDIATION_STATUSES),
  dry_run: Type.Boolean(),
  auto_approved: Type.Boolean(),
  approval_id: Nullable(Type.String({ description: 'the cockpit approval item, when one was needed' })),
  result: Nullable(
    Type.Object({
      success: Type.Boolean(),
      old_replicas: Nullable(Type.Integer()),
      new_replicas: Nullable(Type.Integer()),
      execution_time_ms: Type.Integer(),
      details: Type.Optional(Type.Unknown()),
      error: Type.Optional(Type.String()),
    }),
  ),
  safety_checks: Type.Array(SafetyCheckSchema),
  requested_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
});
