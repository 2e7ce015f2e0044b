/**
 * The operations console: the approval queue (agent actions that need a person), agent settings
 * per tenant, AI metrics, and the console's live feed (the hub notify publishes to, served over a
 * WebSocket). Owns the cockpit_* tables.
 */
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import type { SessionService, TokenService } from '../identity/index.ts';
import { createApprovals } from './approvals.ts';
import type { CockpitConfig } from './config.ts';
import type { ConsoleFeed } from './feed.ts';
import { createAiMetrics } from './metrics.ts';
import { createAgentSettings } from './settings.ts';
import { createFeedSocket } from './socket.ts';

export type { ApprovalRequest, Decision, DecisionEvent, DecisionListener } from './approvals.ts';
export { type ConsoleFeed, type ConsoleFrame, createConsoleFeed } from './feed.ts';
export { cockpitRoutes } from './routes.ts';
export { FEED_PATH, FEED_ROLES } from './socket.ts';
export type { AgentSettings, Approval } from './views.ts';

export interface CockpitDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: CockpitConfig;
  feed: ConsoleFeed;
  tokens: TokenService;
  sessions: SessionService;
}

export function createCockpitService(deps: CockpitDeps) {
  const db = deps.store.db;
  const agentSettings = createAgentSettings({ db, clock: deps.clock });
  const socket = createFeedSocket({
    feed: deps.feed,
    tokens: deps.tokens,
    sessions: deps.sessions,
    log: deps.log,
    authTimeoutMs: deps.options.feedAuthTimeoutMs,
  });
  return {
    feed: deps.feed,
    approvals: createApprovals({ db, clock: deps.clock, newId: deps.newId, log: deps.log, feed: deps.feed }),
    agentSettings,
    /** The tenant's agent settings, spec defaults for anything never set. */
    settings: (tenantId: string) => agentSettings.get(tenantId),
    metrics: createAiMetrics({ db, clock: deps.clock }),
    /** Serves the console feed's WebSocket on the app's server. */
    attach: (server: Server) => socket.attach(server),
    close: () => {
      socket.close();
      deps.feed.close();
    },
  };
}

export type CockpitService = ReturnType<typeof createCockpitService>;
export {
  COCKPIT_SETTINGS,
  type CockpitConfig,
  loadCockpitConfig,
  type RemediationOptions,
} from './config.ts';
export { killSwitchOn } from './errors.ts';
export { MAX_ACTION_TIMEOUT_SECONDS } from './schemas.ts';
export type { CockpitTables } from './tables.ts';
