/** Usage posts (single and batch, through the group-committed ingest) and range summaries. */
import { notFound, validationError } from './errors.ts';
import type { RecordDeps } from './records.ts';
import type { NewUsage } from './schemas-records.ts';
import { recordedAt } from './usage.ts';
import { usageSummary } from './usage-store.ts';
import { toUsageRecord } from './views.ts';

export function createUsageApi(deps: Pick<RecordDeps, 'store' | 'usage' | 'subscriptionRow'>) {
  const db = deps.store.db;
  return {
    async postUsage(tenantId: string, input: NewUsage) {
      recordedAt(input.timestamp);
      const result = await deps.usage.submit(tenantId, input);
      if (result.outcome === 'not_found') throw notFound('Subscription');
      return toUsageRecord(result.record, result.outcome === 'duplicate');
    },

    async postUsageBatch(tenantId: string, inputs: NewUsage[]) {
      // A bad record refuses the batch before any of it is written.
      for (const [i, input] of inputs.entries()) recordedAt(input.timestamp, `body.records.${i}.timestamp`);
      const results = await deps.usage.submitMany(tenantId, inputs);
      const count = (outcome: string) => results.filter((result) => result.outcome === outcome).length;
      return {
        accepted: count('created'),
        duplicates: count('duplicate'),
        rejected: count('not_found'),
        results: results.map((result, index) => ({
          index,
          idempotency_key: inputs[index]!.idempotency_key,
          outcome: result.outcome,
          id: result.record?.id ?? null,
        })),
      };
    },

    async usageSummary(
      tenantId: string,
      subscriptionId: string,
      query: { metric_name: string; start_time: string; end_time: string },
    ) {
      await deps.subscriptionRow(tenantId, subscriptionId);
      const start = recordedAt(query.start_time, 'querystring.start_time');
      const end = recordedAt(query.end_time, 'querystring.end_time');
      if (start >= end)
        throw validationError('querystring.end_time must be later than querystring.start_time');
      const row = await usageSummary(db, tenantId, {
        subscriptionId,
        metricName: query.metric_name,
        start,
        end,
      });
      const count = Number(row.count);
      const total = Number(row.total ?? 0);
      return {
        subscription_id: subscriptionId,
        metric_name: query.metric_name,
        start_time: start,
        end_time: end,
        total_quantity: total,
        record_count: count,
        min_quantity: row.min === null ? null : Number(row.min),
        max_quantity: row.max === null ? null : Number(row.max),
        average_quantity: count === 0 ? null : Math.round((total / count) * 100) / 100,
        first_record_at: row.first,
        last_record_at: row.last,
      };
    },
  };
}
