/**
 * Profit and loss (/api/v1/pnl): statements for the tenant, a brand, a region, brand
 * comparisons, custom reports and trends, answered from daily rollups per location kept as the
 * stores' orders, items, payments and punches arrive by sync (cloud/flows/pnl-sync.ts), and from
 * the finance ledger (expenses, wage rates, stock item costs, beverage classes, budgets) recorded
 * under /api/v1/pnl/ledger. Owns the pnl_* tables.
 */
import type { FastifyInstance } from 'fastify';
import { useErrorArea } from '../../shared/http/areas.ts';
import { pnlErrorHandler } from './errors.ts';
import type { LedgerService } from './ledger.ts';
import { pnlReportRoutes } from './routes.ts';
import { pnlLedgerRoutes } from './routes-ledger.ts';
import type { PnlService } from './service.ts';

export { PNL_READER_ROLES, PNL_WRITER_ROLES } from './access.ts';
export { createLedgerService, type LedgerService } from './ledger.ts';
export {
  forgetCosting,
  forgetFacts,
  forgetOrders,
  recordMenuItems,
  recordOrderItems,
  recordOrders,
  recordPayments,
  recordRecipes,
} from './rollup.ts';
export { forgetPunches, recordPunches } from './rollup-hours.ts';
export type { Structure } from './scope.ts';
export { createPnlService, type PnlService } from './service.ts';

/** /api/v1/pnl: the reports, the catalogs and the ledger, every error as `{ detail }`. */
export async function pnlRoutes(app: FastifyInstance, options: { pnl: PnlService; ledger: LedgerService }) {
  useErrorArea(app, 'pnl', pnlErrorHandler);
  await app.register(pnlReportRoutes, { pnl: options.pnl });
  await app.register(pnlLedgerRoutes, { prefix: '/ledger', ledger: options.ledger });
}
export type { PnlTables } from './tables.ts';
