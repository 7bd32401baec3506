import { randomUUID } from 'node:crypto';
import { AppError, InputError } from '../../http/errors.js';
import type { OutboundClient } from '../../http/outbound.js';
import { isoNow } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { BillingTables } from './billing.tables.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { LimitsService } from './billing.limits.js';
import type { Plan, PlansService } from '../plans/plans.service.js';
import type { BillingRepo } from './billing.repo.js';
import type { CheckoutSession, PublicPlan, Usage, WebhookReceipt } from './billing.schemas.js';
import { createStripeClient, verifyStripeSignature, type FormValue } from './billing.stripe.js';

export interface BillingServiceOptions {
  db: Executor<BillingTables>;
  repo: BillingRepo;
  plans: Pick<PlansService, 'list' | 'get' | 'ids' | 'defaultPlanId'>;
  accounts: Pick<AccountsService, 'getUser' | 'setPlan'>;
  limits: Pick<LimitsService, 'forget' | 'standing'>;
  /**
   * What each stored-resource limit counts, from the module that owns the records (the same
   * counts the limit checks use).
   */
  usage: Record<'memoryEntries' | 'knowledgeBytes' | 'vaultTokens' | 'devices', (ownerId: string) => Promise<number>>;
  audit: Pick<AuditService, 'record'>;
  outbound: Pick<OutboundClient, 'request'>;
  stripe: { secretKey: string | undefined; webhookSecret: string | undefined; apiBaseUrl: string };
  publicBaseUrl: string;
}

/** A plan as GET /billing/plans shows it: the Stripe price id stays on the server. */
export function toPublicPlan(plan: Plan, paymentsConfigured: boolean): PublicPlan {
  return {
    id: plan.id,
    name: plan.name,
    price: plan.price,
    currency: plan.currency,
    interval: plan.interval,
    limits: { ...plan.limits },
    purchasable: paymentsConfigured && plan.price > 0,
  };
}

interface StripeEvent {
  id: string;
  type: string;
  created?: number;
  livemode?: boolean;
  data?: { object?: Record<string, unknown> };
}

/** What an event asks of Hearth, decided before anything is written. */
type Intent =
  | { outcome: 'applied'; userId: string; planId: string; reference: Record<string, unknown> }
  | { outcome: 'ignored'; userId: string | null; planId: string | null; reason: string };

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A return address for Stripe: http(s), parseable once Stripe's placeholder is filled in. */
function checkReturnUrl(value: string | undefined, field: string): void {
  if (value === undefined) return;
  let ok = false;
  try {
    const url = new URL(value.replaceAll('{CHECKOUT_SESSION_ID}', 'cs_x'));
    ok = (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new InputError(field, 'must be an http(s) address');
  }
}

function metadataOf(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = object.metadata;
  return metadata && typeof metadata === 'object' ? (metadata as Record<string, unknown>) : {};
}

export function createBillingService(deps: BillingServiceOptions) {
  const { db, repo, plans, accounts, limits, audit } = deps;
  const stripe = deps.stripe.secretKey
    ? createStripeClient({ outbound: deps.outbound, secretKey: deps.stripe.secretKey, apiBaseUrl: deps.stripe.apiBaseUrl })
    : undefined;
  const returnUrl = `${deps.publicBaseUrl}/api/v1/billing/return`;

  function unknownPlan(planId: string): InputError {
    const known = plans.ids().join(', ');
    return new InputError('planId', `must be one of ${known}`, `Unknown plan ${planId}; known plans: ${known}`);
  }

  async function userIfExists(userId: string) {
    try {
      return await accounts.getUser(userId);
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
  }

  /** checkout.session.completed / async_payment_succeeded: the payer moves to the plan bought. */
  async function sessionIntent(event: StripeEvent, session: Record<string, unknown>): Promise<Intent> {
    const metadata = metadataOf(session);
    const userId = str(session.client_reference_id) ?? str(metadata.userId) ?? null;
    const planId = str(metadata.planId) ?? null;
    if (event.type === 'checkout.session.completed' && session.payment_status === 'unpaid') {
      // A delayed payment method: checkout.session.async_payment_succeeded follows when it clears.
      return { outcome: 'ignored', userId, planId, reason: 'payment not yet received' };
    }
    if (!userId || !planId) return { outcome: 'ignored', userId, planId, reason: 'not a Hearth checkout (no user or plan in it)' };
    if (!plans.get(planId)) return { outcome: 'ignored', userId, planId, reason: `plan ${planId} is not configured` };
    const user = await userIfExists(userId);
    if (!user) return { outcome: 'ignored', userId, planId, reason: 'no such account' };
    return { outcome: 'applied', userId, planId, reference: { sessionId: str(session.id) ?? null } };
  }

  /** customer.subscription.deleted: the subscription ended, so its plan ends too. */
  async function subscriptionEndedIntent(subscription: Record<string, unknown>): Promise<Intent> {
    const metadata = metadataOf(subscription);
    const userId = str(metadata.userId) ?? null;
    const planId = str(metadata.planId) ?? null;
    if (!userId || !planId) return { outcome: 'ignored', userId, planId, reason: 'not a Hearth subscription' };
    const user = await userIfExists(userId);
    if (!user) return { outcome: 'ignored', userId, planId, reason: 'no such account' };
    // Someone moved since (another purchase, the administrator): that later choice stands.
    if (user.planId !== planId) return { outcome: 'ignored', userId, planId, reason: 'the account is no longer on this plan' };
    return {
      outcome: 'applied',
      userId,
      planId: plans.defaultPlanId,
      reference: { subscriptionId: str(subscription.id) ?? null },
    };
  }

  async function intentOf(event: StripeEvent): Promise<Intent> {
    const object = event.data?.object;
    if (!object || typeof object !== 'object') return { outcome: 'ignored', userId: null, planId: null, reason: 'no data.object' };
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        return sessionIntent(event, object);
      case 'customer.subscription.deleted':
        return subscriptionEndedIntent(object);
      default:
        return { outcome: 'ignored', userId: null, planId: null, reason: 'event type not used by Hearth' };
    }
  }

  return {
    /** The owner's plan and what they use of each of its limits. */
    async usage(ownerId: string): Promise<Usage> {
      const { plan, applies, requestsToday, resetsAt } = await limits.standing(ownerId);
      const limitOf = (name: keyof typeof plan.limits) => (applies ? plan.limits[name] : null);
      const [memoryEntries, knowledgeBytes, vaultTokens, devices] = await Promise.all([
        deps.usage.memoryEntries(ownerId),
        deps.usage.knowledgeBytes(ownerId),
        deps.usage.vaultTokens(ownerId),
        deps.usage.devices(ownerId),
      ]);
      return {
        plan: { id: plan.id, name: plan.name },
        limitsApply: applies,
        usage: {
          memoryEntries: { used: memoryEntries, limit: limitOf('memoryEntries') },
          knowledgeBytes: { used: knowledgeBytes, limit: limitOf('knowledgeBytes') },
          vaultTokens: { used: vaultTokens, limit: limitOf('vaultTokens') },
          devices: { used: devices, limit: limitOf('devices') },
          apiRequestsPerDay: { used: requestsToday, limit: limitOf('apiRequestsPerDay'), resetsAt },
        },
      };
    },

    listPlans(): PublicPlan[] {
      return plans.list().map((plan) => toPublicPlan(plan, stripe !== undefined));
    },

    /**
     * Opens a Stripe Checkout Session (subscription mode) for one of the paid plans. The plan
     * changes only when Stripe's webhook confirms the payment, never on this call.
     */
    async checkout(
      ownerId: string,
      input: { planId: string; successUrl?: string | undefined; cancelUrl?: string | undefined },
      actor: AuditActor,
    ): Promise<CheckoutSession> {
      if (!stripe) {
        throw new AppError('PROVIDER_NOT_CONFIGURED', 'Payments are not configured on this server: the operator sets STRIPE_SECRET_KEY to enable checkout');
      }
      checkReturnUrl(input.successUrl, 'successUrl');
      checkReturnUrl(input.cancelUrl, 'cancelUrl');
      const plan = plans.get(input.planId);
      if (!plan) throw unknownPlan(input.planId);
      if (plan.price === 0) {
        throw new InputError('planId', 'must be a paid plan', `The ${plan.name} plan is free and needs no checkout; choose a paid plan`);
      }
      const user = await accounts.getUser(ownerId);
      if (user.planId === plan.id) {
        throw new AppError('CONFLICT', `This account is already on the ${plan.name} plan`, { details: { planId: plan.id } });
      }
      const lineItem: Record<string, FormValue> = plan.stripePriceId
        ? { price: plan.stripePriceId, quantity: 1 }
        : {
            price_data: {
              currency: plan.currency,
              unit_amount: plan.price,
              recurring: { interval: plan.interval },
              product_data: { name: `Hearth ${plan.name}` },
            },
            quantity: 1,
          };
      const reference = { userId: user.id, planId: plan.id };
      const session = await stripe.createCheckoutSession(
        {
          mode: 'subscription',
          line_items: [lineItem],
          success_url: input.successUrl ?? `${returnUrl}?result=success&session_id={CHECKOUT_SESSION_ID}`,
          cancel_url: input.cancelUrl ?? `${returnUrl}?result=cancel`,
          client_reference_id: user.id,
          customer_email: user.email,
          metadata: reference,
          // The subscription carries them too, so its end (customer.subscription.deleted) finds the account.
          subscription_data: { metadata: reference },
        },
        randomUUID(),
      );
      await audit.record(actor, {
        action: 'billing.checkout',
        outcome: 'success',
        targetType: 'plan',
        targetId: plan.id,
        details: { sessionId: session.id },
      });
      return { url: session.url, sessionId: session.id };
    },

    /**
     * A Stripe webhook delivery. The signature is checked over the raw body first; then the
     * event id is recorded and acted on in one transaction, so a repeated delivery does nothing
     * and a failed one leaves no record (Stripe retries it).
     */
    async handleWebhook(
      rawBody: Buffer | undefined,
      signature: string | undefined,
      actor: AuditActor,
    ): Promise<WebhookReceipt> {
      const secret = deps.stripe.webhookSecret;
      if (!secret) {
        throw new AppError('PROVIDER_NOT_CONFIGURED', 'Stripe webhooks are not configured on this server: the operator sets STRIPE_WEBHOOK_SECRET');
      }
      if (!rawBody || rawBody.length === 0) throw new AppError('VALIDATION_ERROR', 'Stripe webhook refused: the body is empty');
      verifyStripeSignature(rawBody, signature, secret);

      let event: StripeEvent;
      try {
        event = JSON.parse(rawBody.toString('utf8')) as StripeEvent;
      } catch {
        throw new AppError('VALIDATION_ERROR', 'Stripe webhook refused: the body is not JSON');
      }
      if (!event || typeof event !== 'object' || !str(event.id) || !str(event.type)) {
        throw new AppError('VALIDATION_ERROR', 'Stripe webhook refused: the body is not a Stripe event (no id or type)');
      }

      // Quick answer for a repeat, without re-reading the account.
      const seen = await repo.findEvent(event.id);
      if (seen) return { received: true, eventId: event.id, duplicate: true, outcome: seen.outcome };

      const intent = await intentOf(event);
      const created = typeof event.created === 'number' ? new Date(event.created * 1000).toISOString() : isoNow();
      // The plan change is announced (account events, webhooks) once it is committed.
      const afterCommit: Array<() => void> = [];
      const recorded = await db.transaction().execute(async (trx) => {
        const inserted = await repo.recordEvent(
          {
            id: event.id,
            type: event.type,
            livemode: event.livemode ? 1 : 0,
            outcome: intent.outcome,
            user_id: intent.userId,
            plan_id: intent.planId,
            created_at: created,
            received_at: isoNow(),
          },
          trx,
        );
        if (!inserted) return false;
        if (intent.outcome === 'applied') {
          await accounts.setPlan(intent.userId, intent.planId, { ...actor, ownerId: intent.userId, tokenId: null }, {
            trx,
            afterCommit,
            auditAction: 'billing.plan_change',
            auditDetails: { eventId: event.id, eventType: event.type, ...intent.reference },
          });
        }
        return true;
      });
      if (!recorded) return { received: true, eventId: event.id, duplicate: true, outcome: intent.outcome };
      for (const announce of afterCommit) announce();
      if (intent.outcome === 'applied') limits.forget(intent.userId);
      return { received: true, eventId: event.id, duplicate: false, outcome: intent.outcome };
    },
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
