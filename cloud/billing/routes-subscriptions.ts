import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { doc, NoContent, tenant } from './routes-support.ts';
import * as s from './schemas.ts';
import {
  DunningFailureSchema,
  DunningSchema,
  LimitQuerySchema,
  UsageSummaryQuerySchema,
  UsageSummarySchema,
} from './schemas-records.ts';
import type { BillingService } from './service.ts';

const params = s.SubscriptionParamsSchema;
const Subscription = s.SubscriptionSchema;

/** Subscriptions, their add-ons, discount, dunning and usage summary. */
export async function subscriptionRoutes(app: FastifyInstance, billing: BillingService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/subscriptions',
    {
      schema: {
        ...doc('Record a subscription', 'From the payment processor; 201 with the stored subscription.'),
        body: s.NewSubscriptionSchema,
        response: { 201: Subscription, ...s.billingErrors(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await billing.createSubscription(tenant(request), request.body)),
  );

  r.get(
    '/subscriptions',
    {
      schema: {
        ...doc('The tenant’s subscriptions, newest first', 'Usually one: the plan the tenant pays for.'),
        querystring: LimitQuerySchema,
        response: { 200: s.ListOf(Subscription), ...s.billingErrors(400, 401, 403) },
      },
    },
    async (request) => ({ items: await billing.listSubscriptions(tenant(request), request.query.limit) }),
  );

  r.get(
    '/subscriptions/:subscription_id',
    {
      schema: {
        ...doc('One subscription'),
        params,
        response: { 200: Subscription, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request) => billing.getSubscription(tenant(request), request.params.subscription_id),
  );

  r.patch(
    '/subscriptions/:subscription_id',
    {
      schema: {
        ...doc('Change a subscription', 'Any status may be set; fields left out keep their value.'),
        params,
        body: s.SubscriptionPatchSchema,
        response: { 200: Subscription, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request) =>
      billing.updateSubscription(tenant(request), request.params.subscription_id, request.body),
  );

  for (const action of ['pause', 'resume'] as const) {
    r.post(
      `/subscriptions/:subscription_id/${action}`,
      {
        schema: {
          ...doc(
            action === 'pause' ? 'Pause a subscription' : 'Resume a paused subscription',
            `Forwarded to the platform service first; only on its success the subscription becomes ${action === 'pause' ? 'paused' : 'active'} and a \`${action === 'pause' ? 'paused' : 'resumed'}\` event is recorded. 502 upstream_error when the platform service is unreachable or fails (nothing changes); 409 invalid_state when ${action === 'pause' ? 'already paused' : 'not paused'}.`,
          ),
          params,
          response: { 200: Subscription, ...s.billingErrors(400, 401, 403, 404, 409, 502) },
        },
      },
      async (request) => billing[action](tenant(request), request.params.subscription_id),
    );
  }

  r.post(
    '/subscriptions/:subscription_id/addons',
    {
      schema: {
        ...doc(
          'Add an add-on to a subscription',
          '201 when added; 200 when the subscription had it and its quantity was set. 409 addon_inactive for an inactive add-on.',
        ),
        params,
        body: s.NewSubscriptionAddonSchema,
        response: {
          200: s.SubscriptionAddonSchema,
          201: s.SubscriptionAddonSchema,
          ...s.billingErrors(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const result = await billing.addSubscriptionAddon(
        tenant(request),
        request.params.subscription_id,
        request.body,
      );
      return reply.code(result.created ? 201 : 200).send(result.item);
    },
  );

  r.get(
    '/subscriptions/:subscription_id/addons',
    {
      schema: {
        ...doc('A subscription’s add-ons'),
        params,
        response: { 200: s.ListOf(s.SubscriptionAddonSchema), ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      items: await billing.listSubscriptionAddons(tenant(request), request.params.subscription_id),
    }),
  );

  r.delete(
    '/subscriptions/:subscription_id/addons/:addon_id',
    {
      schema: {
        ...doc('Remove an add-on from a subscription'),
        params: s.SubscriptionAddonParamsSchema,
        response: { 204: NoContent, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { subscription_id, addon_id } = request.params;
      await billing.removeSubscriptionAddon(tenant(request), subscription_id, addon_id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/subscriptions/:subscription_id/discount',
    {
      schema: {
        ...doc(
          'Apply a discount code to a subscription',
          'The checks of /discounts/validate for the subscription’s plan; one redemption is taken (none when the same discount is already applied). 404 for an unknown code, 409 discount_not_applicable with the reason.',
        ),
        params,
        body: s.AttachDiscountSchema,
        response: { 200: Subscription, ...s.billingErrors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      billing.attachDiscount(tenant(request), request.params.subscription_id, request.body.discount_code),
  );

  r.delete(
    '/subscriptions/:subscription_id/discount',
    {
      schema: {
        ...doc('Remove a subscription’s discount', 'The redemption is not given back. 404 when it has none.'),
        params,
        response: { 204: NoContent, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await billing.detachDiscount(tenant(request), request.params.subscription_id);
      return reply.code(204).send();
    },
  );

  r.get(
    '/subscriptions/:subscription_id/dunning',
    {
      schema: {
        ...doc('A subscription’s dunning state', 'status ok with no failures when it never failed.'),
        params,
        response: { 200: DunningSchema, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request) => billing.dunning(tenant(request), request.params.subscription_id),
  );

  r.post(
    '/subscriptions/:subscription_id/dunning/failure',
    {
      schema: {
        ...doc(
          'Record a failed payment',
          'One more failure: retrying with the next retry after 1, 3, 5, 7 days (subscription past_due), exhausted at the 5th (subscription unpaid). 400 when processor_subscription_id is not this subscription’s.',
        ),
        params,
        body: DunningFailureSchema,
        response: { 200: DunningSchema, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request) => billing.dunningFailure(tenant(request), request.params.subscription_id, request.body),
  );

  r.post(
    '/subscriptions/:subscription_id/dunning/recovered',
    {
      schema: {
        ...doc(
          'Record that payment recovered',
          'retrying or exhausted → recovered: the subscription becomes active and a `reactivated` event is recorded. 409 invalid_state when no failure is ongoing.',
        ),
        params,
        response: { 200: DunningSchema, ...s.billingErrors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => billing.dunningRecovered(tenant(request), request.params.subscription_id),
  );

  r.get(
    '/subscriptions/:subscription_id/usage',
    {
      schema: {
        ...doc(
          'Usage of one metric over a time range',
          'Records with start_time ≤ timestamp < end_time; each idempotency key counted once. 400 when end_time is not after start_time.',
        ),
        params,
        querystring: UsageSummaryQuerySchema,
        response: { 200: UsageSummarySchema, ...s.billingErrors(400, 401, 403, 404) },
      },
    },
    async (request) => billing.usageSummary(tenant(request), request.params.subscription_id, request.query),
  );
}
