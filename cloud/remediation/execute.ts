/** Runs an executor under the agent time-out and turns what happened into the record's result. */
import { performance } from 'node:perf_hooks';
import type { ExecutionContext, RemediationExecutor } from './executors/index.ts';
import type { RemediationStatus } from './tables.ts';

export interface Outcome {
  status: Extract<RemediationStatus, 'executed' | 'failed' | 'timed_out'>;
  result: Record<string, unknown>;
  ms: number;
}

export async function runExecutor(
  executor: RemediationExecutor,
  context: Omit<ExecutionContext, 'signal'>,
  timeoutMs: number,
): Promise<Outcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve('timeout');
    }, timeoutMs);
  });
  const started = performance.now();
  try {
    const answer = await Promise.race([
      executor.execute({ ...context, signal: controller.signal }),
      timedOut,
    ]);
    const ms = Math.round(performance.now() - started);
    if (answer === 'timeout')
      return {
        status: 'timed_out',
        ms,
        result: resultOf(
          { success: false, error: `no answer within the time-out of ${timeoutMs / 1000} s` },
          ms,
        ),
      };
    return { status: answer.success ? 'executed' : 'failed', ms, result: resultOf(answer, ms) };
  } catch (error) {
    const ms = Math.round(performance.now() - started);
    return {
      status: 'failed',
      ms,
      result: resultOf({ success: false, error: (error as Error).message }, ms),
    };
  } finally {
    clearTimeout(timer);
  }
}

export function resultOf(
  answer: {
    success: boolean;
    old_replicas?: number | null;
    new_replicas?: number | null;
    details?: unknown;
    error?: string;
  },
  ms: number,
) {
  return {
    success: answer.success,
    old_replicas: answer.old_replicas ?? null,
    new_replicas: answer.new_replicas ?? null,
    execution_time_ms: ms,
    ...(answer.details !== undefined ? { details: answer.details } : {}),
    ...(answer.error !== undefined ? { error: answer.error } : {}),
  };
}
