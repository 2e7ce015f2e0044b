import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { pnlSuccess } from '../../shared/http/envelope.ts';
import { assertNoNul } from '../../shared/http/validation.ts';
import { PNL_READER_ROLES, PNL_WRITER_ROLES, pnlGuard, tenantOf } from './access.ts';
import type { LedgerService } from './ledger.ts';
import * as s from './schemas.ts';

const doc = { tags: ['pnl-ledger'], security: [{ bearer: [] }] };
const writeErrors = s.pnlErrorResponses(400, 401, 403, 404);
const page = (query: { limit?: number | undefined; cursor?: string | undefined }) => ({
  limit: query.limit ?? 100,
  after: query.cursor,
});
const Deleted = { 204: { type: 'null', description: 'Deleted' } };

/** /api/v1/pnl/ledger: the figures finance records for the statements. Readers list; writers record. */
export async function pnlLedgerRoutes(app: FastifyInstance, { ledger }: { ledger: LedgerService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const read = { onRequest: pnlGuard(app, PNL_READER_ROLES) };
  const write = { onRequest: pnlGuard(app, PNL_WRITER_ROLES) };
  app.addContentTypeParser(
    'text/csv',
    { parseAs: 'string', bodyLimit: 5 * 1024 * 1024 },
    (_request, body, done) => {
      try {
        assertNoNul(body as string);
      } catch (error) {
        return done(error as Error);
      }
      done(null, body);
    },
  );

  r.post(
    '/expenses',
    {
      ...write,
      schema: {
        ...doc,
        summary: 'Record an expense of a location or a brand',
        body: s.ExpenseBodySchema,
        response: { 201: s.Success(s.ExpenseSchema), ...writeErrors },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return pnlSuccess(await ledger.createExpense(tenantOf(request), request.body));
    },
  );

  r.post(
    '/expenses/import',
    {
      ...write,
      schema: {
        ...doc,
        summary: 'Import expenses from CSV (text/csv), all or nothing',
        description:
          'Header line with expense_date, category, amount and location_id or brand_id (description optional). Every line is checked; one bad line refuses the file and the 400 names each bad line.',
        body: { type: 'string', description: 'The CSV text' },
        consumes: ['text/csv'],
        response: { 201: s.Success(s.ImportSchema), ...writeErrors },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return pnlSuccess(await ledger.importExpenses(tenantOf(request), request.body as string));
    },
  );

  r.get(
    '/expenses',
    {
      ...read,
      schema: {
        ...doc,
        summary: 'List expenses',
        querystring: s.ExpenseQuerySchema,
        response: { 200: s.Success(s.Page(s.ExpenseSchema)), ...writeErrors },
      },
    },
    async (request) => {
      const { limit, cursor, ...filter } = request.query;
      return pnlSuccess(await ledger.listExpenses(tenantOf(request), filter, page({ limit, cursor })));
    },
  );

  r.get(
    '/expenses/:id',
    {
      ...read,
      schema: {
        ...doc,
        summary: 'One expense',
        params: s.IdParamsSchema,
        response: { 200: s.Success(s.ExpenseSchema), ...writeErrors },
      },
    },
    async (request) => pnlSuccess(await ledger.getExpense(tenantOf(request), request.params.id)),
  );

  r.delete(
    '/expenses/:id',
    {
      ...write,
      schema: {
        ...doc,
        summary: 'Delete an expense',
        params: s.IdParamsSchema,
        response: { ...Deleted, ...writeErrors },
      },
    },
    async (request, reply) => {
      await ledger.deleteExpense(tenantOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/wage-rates',
    {
      ...write,
      schema: {
        ...doc,
        summary: "Set a staff member's hourly rate from a day on (replaces the rate starting that day)",
        body: s.WageRateBodySchema,
        response: { 201: s.Success(s.WageRateSchema), ...writeErrors },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return pnlSuccess(await ledger.setWageRate(tenantOf(request), request.body));
    },
  );

  r.get(
    '/wage-rates',
    {
      ...read,
      schema: {
        ...doc,
        summary: 'List wage rates',
        querystring: s.WageRateQuerySchema,
        response: { 200: s.Success(s.Page(s.WageRateSchema)), ...writeErrors },
      },
    },
    async (request) =>
      pnlSuccess(await ledger.listWageRates(tenantOf(request), request.query.staff_id, page(request.query))),
  );

  r.delete(
    '/wage-rates/:id',
    {
      ...write,
      schema: {
        ...doc,
        summary: 'Delete a wage rate',
        params: s.IdParamsSchema,
        response: { ...Deleted, ...writeErrors },
      },
    },
    async (request, reply) => {
      await ledger.deleteWageRate(tenantOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  r.put(
    '/item-costs/:inventory_item_id',
    {
      ...write,
      schema: {
        ...doc,
        summary: "Set a stock item's cost per unit (applies to every day's food and beverage cost)",
        params: s.ItemParamsSchema,
        body: s.ItemCostBodySchema,
        response: { 200: s.Success(s.ItemCostSchema), ...writeErrors },
      },
    },
    async (request) =>
      pnlSuccess(
        await ledger.setItemCost(tenantOf(request), request.params.inventory_item_id, request.body.unit_cost),
      ),
  );

  r.get(
    '/item-costs',
    {
      ...read,
      schema: {
        ...doc,
        summary: 'List stock item costs',
        querystring: s.PageQuerySchema,
        response: { 200: s.Success(s.Page(s.ItemCostSchema)), ...writeErrors },
      },
    },
    async (request) => pnlSuccess(await ledger.listItemCosts(tenantOf(request), page(request.query))),
  );

  r.delete(
    '/item-costs/:inventory_item_id',
    {
      ...write,
      schema: {
        ...doc,
        summary: "Delete a stock item's cost",
        params: s.ItemParamsSchema,
        response: { ...Deleted, ...writeErrors },
      },
    },
    async (request, reply) => {
      await ledger.deleteItemCost(tenantOf(request), request.params.inventory_item_id);
      return reply.code(204).send();
    },
  );

  r.put(
    '/classifications/:kind/:ref_id',
    {
      ...write,
      schema: {
        ...doc,
        summary: 'Classify a menu item or a menu category as food or beverage',
        params: s.ClassificationParamsSchema,
        body: s.ClassificationBodySchema,
        response: { 200: s.Success(s.ClassificationSchema), ...writeErrors },
      },
    },
    async (request) =>
      pnlSuccess(
        await ledger.setClassification(
          tenantOf(request),
          request.params.kind,
          request.params.ref_id,
          request.body.cost_class,
        ),
      ),
  );

  r.get(
    '/classifications',
    {
      ...read,
      schema: {
        ...doc,
        summary: 'List classifications',
        querystring: s.PageQuerySchema,
        response: { 200: s.Success(s.Page(s.ClassificationSchema)), ...writeErrors },
      },
    },
    async (request) => pnlSuccess(await ledger.listClassifications(tenantOf(request), page(request.query))),
  );

  r.delete(
    '/classifications/:kind/:ref_id',
    {
      ...write,
      schema: {
        ...doc,
        summary: 'Delete a classification (the item falls back to its category, then to food)',
        params: s.ClassificationParamsSchema,
        response: { ...Deleted, ...writeErrors },
      },
    },
    async (request, reply) => {
      await ledger.deleteClassification(tenantOf(request), request.params.kind, request.params.ref_id);
      return reply.code(204).send();
    },
  );

  r.put(
    '/budgets',
    {
      ...write,
      schema: {
        ...doc,
        summary: "Set a brand's or a location's budget for a month (201 new, 200 replaced)",
        body: s.BudgetBodySchema,
        response: { 200: s.Success(s.BudgetSchema), 201: s.Success(s.BudgetSchema), ...writeErrors },
      },
    },
    async (request, reply) => {
      const result = await ledger.setBudget(tenantOf(request), request.body);
      reply.code(result.created ? 201 : 200);
      return pnlSuccess(result.budget);
    },
  );

  r.get(
    '/budgets',
    {
      ...read,
      schema: {
        ...doc,
        summary: 'List budgets',
        querystring: s.BudgetQuerySchema,
        response: { 200: s.Success(s.Page(s.BudgetSchema)), ...writeErrors },
      },
    },
    async (request) =>
      pnlSuccess(await ledger.listBudgets(tenantOf(request), request.query.month, page(request.query))),
  );

  r.delete(
    '/budgets/:id',
    {
      ...write,
      schema: {
        ...doc,
        summary: 'Delete a budget',
        params: s.IdParamsSchema,
        response: { ...Deleted, ...writeErrors },
      },
    },
    async (request, reply) => {
      await ledger.deleteBudget(tenantOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
