import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { access, principalOf } from '../../http/access.js';
import { inRequestPart } from '../../http/errors.js';
import { escapeHtml, pageStyle, renderPage, sendPage, type Page } from '../../http/pages.js';
import { actorOf } from '../audit/audit.service.js';
import { CheckoutBody, CheckoutResponse, PlanList, ReturnQuery, UsageResponse, WebhookResponse } from './billing.schemas.js';
import type { BillingService } from './billing.service.js';

/** Stripe's events are small; a webhook body larger than this is not Stripe's. */
const WEBHOOK_BODY_LIMIT = 512 * 1024;

// A sheet, not a style attribute: the page's policy allows the sheet by its hash, and no attribute.
const RETURN_STYLE = pageStyle('body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}');

function returnPage(result: 'success' | 'cancel' | undefined): Page {
  const [title, text] =
    result === 'success'
      ? ['Payment received', 'Thank you. Your plan changes as soon as Stripe confirms the payment to this server, usually within seconds. You can close this page.']
      : result === 'cancel'
        ? ['Checkout cancelled', 'Nothing was charged and your plan is unchanged. You can close this page.']
        : ['Checkout', 'You can close this page.'];
  return renderPage({ title, style: RETURN_STYLE, body: `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>` });
}

export function billingRoutes(deps: { billing: BillingService }): FastifyPluginAsyncTypebox {
  const { billing } = deps;
  const tags = ['billing'];
  return async (app) => {
    app.get(
      '/api/v1/billing/plans',
      {
        config: { access: access.public(), dailyQuotaExempt: true },
        schema: {
          operationId: 'listBillingPlans',
          summary: 'The plans, with their prices (in cents) and limits',
          tags,
          response: { 200: PlanList },
        },
      },
      async () => ({ data: billing.listPlans() }),
    );

    app.get(
      '/api/v1/billing/usage',
      {
        // What the account holds, in numbers: the owner's view (the console's plan page).
        // Exempt like the other billing routes: an owner at the daily cap can still see why.
        config: { access: access.owner(), dailyQuotaExempt: true },
        schema: {
          operationId: 'getBillingUsage',
          summary: "The owner's plan and what they use of each of its limits",
          tags,
          response: { 200: UsageResponse },
        },
      },
      async (request) => ({ data: await billing.usage(principalOf(request).ownerId) }),
    );

    app.post(
      '/api/v1/billing/checkout',
      {
        // Spending money is the owner's decision, not an agent's.
        config: { access: access.owner(), dailyQuotaExempt: true },
        schema: {
          operationId: 'createBillingCheckout',
          summary: "Open a Stripe Checkout page for a paid plan; the plan changes when Stripe confirms the payment",
          tags,
          body: CheckoutBody,
          response: { 200: CheckoutResponse },
        },
      },
      async (request) => {
        const session = await inRequestPart('body', billing.checkout(principalOf(request).ownerId, request.body, actorOf(request)));
        return { data: session };
      },
    );

    app.get(
      '/api/v1/billing/return',
      {
        config: { access: access.public(), dailyQuotaExempt: true },
        schema: {
          operationId: 'billingCheckoutReturn',
          summary: "Where Stripe's checkout page sends the browser back: a short HTML page",
          tags,
          querystring: ReturnQuery,
          response: { 200: { description: 'An HTML page', content: { 'text/html': { schema: Type.String() } } } },
        },
      },
      async (request, reply) => sendPage(reply, returnPage(request.query.result)),
    );

    // The webhook's signature covers the exact bytes Stripe sent, so this route alone keeps
    // the raw body instead of parsing JSON.
    await app.register(async (raw) => {
      raw.removeContentTypeParser('application/json');
      raw.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => {
        done(null, body);
      });
      raw.post(
        '/api/v1/billing/webhook',
        {
          config: { access: access.public() },
          bodyLimit: WEBHOOK_BODY_LIMIT,
          schema: {
            operationId: 'stripeWebhook',
            summary: 'Stripe webhook endpoint: signed events (checkout.session.completed moves the payer to the plan bought)',
            description:
              'Register this address in Stripe (Developers → Webhooks) for checkout.session.completed, checkout.session.async_payment_succeeded and customer.subscription.deleted. Requests must carry a valid Stripe-Signature header.',
            tags,
            headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String({ maxLength: 4096 })) }),
            response: { 200: WebhookResponse },
          },
        },
        async (request) => {
          const result = await inRequestPart(
            'headers',
            billing.handleWebhook(request.body as Buffer | undefined, request.headers['stripe-signature'] as string | undefined, actorOf(request, null)),
          );
          return { data: result };
        },
      );
    });
  };
}
