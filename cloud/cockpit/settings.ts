/** Agent settings per tenant: stored, defaulted, and read by whatever acts for an agent. */
import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../db/index.ts';
import type { AgentSettingsRow } from './tables.ts';
import { type AgentSettings, toSettings } from './views.ts';

export type AgentSettingsPatch = Partial<Omit<AgentSettings, 'updated_at' | 'updated_by'>>;

const row = (db: Db, tenantId: string) =>
  db.selectFrom('cockpit_agent_settings').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();

export function createAgentSettings(deps: { db: Db; clock: Clock }) {
  const { db } = deps;
  return {
    /** The tenant's settings, spec defaults for anything never set. */
    get: async (tenantId: string) => toSettings(await row(db, tenantId)),

    /** Changes the fields given; the others keep their value. */
    async put(tenantId: string, patch: AgentSettingsPatch, userId: string) {
      const current = toSettings(await row(db, tenantId));
      const next = { ...current, ...patch };
      const values: AgentSettingsRow = {
        tenant_id: tenantId,
        max_model_tier: next.max_model_tier,
        safety_level: next.safety_level,
        rate_limit_per_minute: next.rate_limit_per_minute,
        context_window_tokens: next.context_window_tokens,
        timeout_seconds: next.timeout_seconds,
        kill_switch: next.kill_switch ? 1 : 0,
        updated_at: deps.clock.now().toISOString(),
        updated_by: userId,
      };
      const { tenant_id: _, ...update } = values;
      await db
        .insertInto('cockpit_agent_settings')
        .values(values)
        .onConflict((c) => c.column('tenant_id').doUpdateSet(update))
        .execute();
      return toSettings(values);
    },
  };
}

export type AgentSettingsService = ReturnType<typeof createAgentSettings>;
