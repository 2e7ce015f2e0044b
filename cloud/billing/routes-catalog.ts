import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { doc, NoContent, tenant } from './routes-support.ts';
import * as s from './schemas.ts';
import type { BillingService } from './service.ts';

const Addon = s.AddonSchema;
const Discount = s.DiscountSchema;

/** Add-ons and discounts: the tenant's catalog of extras and codes. */
export async function catalogRoutes(app: FastifyInstance, billing: BillingService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/addons',
    {
      schema: {
        ...doc('Create an add-on', 'Active when created; 400 when metadata_json is not JSON text.'),
        body: s.NewAddonSchema,
        response: { 201: Addon, ...s.billingErrors(400, 401, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await billing.createAddon(tenant(request), request.body)),
  );

  r.get(
    '/addons',
    {
      schema: {
        ...doc('The tenant’s add-ons'),
        querystring: s.ActiveOnlyQuerySchema,
        response: { 200: s.ListOf(Addon), ...s.billingErrors(400, 401, 403) },
      },
    },
    async (request) => ({ items: await billing.listAddons(tenant(request), request.query.active_only) }),
  );

  r.get(
    '/addons/:addon_id',
    {
      schema: {
        ...doc('One add-on'),
        params: s.AddonParamsSchema,
        response: { 200: Addon, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request) => billing.getAddon(tenant(request), request.params.addon_id),
  );

  r.patch(
    '/addons/:addon_id',
    {
      schema: {
        ...doc('Change an add-on'),
        params: s.AddonParamsSchema,
        body: s.AddonPatchSchema,
        response: { 200: Addon, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request) => billing.updateAddon(tenant(request), request.params.addon_id, request.body),
  );

  r.delete(
    '/addons/:addon_id',
    {
      schema: {
        ...doc('Deactivate an add-on', 'Soft delete: is_active becomes false; the record stays.'),
        params: s.AddonParamsSchema,
        response: { 204: NoContent, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await billing.deleteAddon(tenant(request), request.params.addon_id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/discounts',
    {
      schema: {
        ...doc(
          'Create a discount code',
          'A percentage is 1 to 100; duration_months goes with (and only with) repeating; valid_to after valid_from. 409 conflict when the code exists.',
        ),
        body: s.NewDiscountSchema,
        response: { 201: Discount, ...s.billingErrors(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await billing.createDiscount(tenant(request), request.body)),
  );

  r.get(
    '/discounts',
    {
      schema: {
        ...doc('The tenant’s discounts'),
        querystring: s.ActiveOnlyQuerySchema,
        response: { 200: s.ListOf(Discount), ...s.billingErrors(400, 401, 403) },
      },
    },
    async (request) => ({ items: await billing.listDiscounts(tenant(request), request.query.active_only) }),
  );

  r.get(
    '/discounts/by-code',
    {
      schema: {
        ...doc('A discount by its code'),
        querystring: s.ByCodeQuerySchema,
        response: { 200: Discount, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request) => billing.discountByCode(tenant(request), request.query.code),
  );

  r.post(
    '/discounts/validate',
    {
      schema: {
        ...doc(
          'Check a code against a cart',
          'Always 200: valid or not, why not (not_found, inactive, not_yet_valid, expired, max_redemptions_reached, plan_not_eligible), and the cents it takes off. Percentages round down to the cent; no discount exceeds the cart.',
        ),
        body: s.ValidateDiscountSchema,
        response: { 200: s.DiscountValidationSchema, ...s.billingErrors(400, 401, 403) },
      },
    },
    async (request) => billing.validateDiscount(tenant(request), request.body),
  );

  r.get(
    '/discounts/:discount_id',
    {
      schema: {
        ...doc('One discount'),
        params: s.DiscountParamsSchema,
        response: { 200: Discount, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request) => billing.getDiscount(tenant(request), request.params.discount_id),
  );

  r.patch(
    '/discounts/:discount_id',
    {
      schema: {
        ...doc('Change a discount'),
        params: s.DiscountParamsSchema,
        body: s.DiscountPatchSchema,
        response: { 200: Discount, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request) => billing.updateDiscount(tenant(request), request.params.discount_id, request.body),
  );

  r.delete(
    '/discounts/:discount_id',
    {
      schema: {
        ...doc('Deactivate a discount', 'Soft delete: is_active becomes false; the record stays.'),
        params: s.DiscountParamsSchema,
        response: { 204: NoContent, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await billing.deleteDiscount(tenant(request), request.params.discount_id);
      return reply.code(204).send();
    },
  );
}
