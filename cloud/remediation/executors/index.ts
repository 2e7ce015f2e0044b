/**
 * Executors carry out a remediation. One file per executor; this registry names which action each
 * serves. The built-ins act on our own fleet through MDM commands; a deployment registers its own
 * (scaling, failover, database queries) with `remediation.executors.register`.
 */
import type { RemediationAction } from '../actions.ts';

/** The alert as remediation reads it (alerting's record: spec list item plus environment, labels...). */
export interface RemediationAlert {
  id: string;
  title: string;
  service: string;
  severity: string;
  environment?: string | null;
  labels?: Record<string, string> | null;
  runbook_url?: string | null;
}

/** What an action acts on: `key` identifies it for the rate limits. */
export interface Target {
  key: string;
  description: string;
  deviceIds?: string[];
}

export interface ExecutionContext {
  tenantId: string;
  alert: RemediationAlert;
  target: Target;
  parameters: Record<string, unknown>;
  /** Aborted when the agent time-out passes. */
  signal: AbortSignal;
}

export interface ExecutionResult {
  success: boolean;
  old_replicas?: number | null;
  new_replicas?: number | null;
  details?: Record<string, unknown>;
  error?: string;
}

export interface RemediationExecutor {
  /** A problem with the parameters, as `{field, message}` (field under body.parameters), or undefined. */
  validate?(parameters: Record<string, unknown>): { field: string; message: string } | undefined;
  /** What the action would act on for this alert, or why there is nothing. */
  target(
    tenantId: string,
    alert: RemediationAlert,
    parameters: Record<string, unknown>,
  ): Promise<Target | { missing: string }>;
  execute(context: ExecutionContext): Promise<ExecutionResult>;
}

export function createExecutorRegistry() {
  const executors = new Map<RemediationAction, RemediationExecutor>();
  return {
    register(action: RemediationAction, executor: RemediationExecutor) {
      executors.set(action, executor);
    },
    get: (action: RemediationAction) => executors.get(action),
    actions: () => [...executors.keys()],
  };
}

export type ExecutorRegistry = ReturnType<typeof createExecutorRegistry>;
