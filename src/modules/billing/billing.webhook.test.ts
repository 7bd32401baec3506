import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signStripePayload, startFakeStripe, stripeEvent, type FakeStripe, type StripeEvent } from '../../../test/fakes/stripe.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

const WEBHOOK = '/api/v1/billing/webhook';
const SECRET = 'whsec_test_webhook_secret';

let fake: FakeStripe;
let t: TestApp;
let admin: Owner;

beforeAll(async () => {
  fake = await startFakeStripe({ secretKey: 'sk_test_webhooks' });
  t = await createTestApp({
    config: { allowPrivateNetwork: true, planLimits: true, stripe: { secretKey: fake.secretKey, webhookSecret: SECRET, apiBaseUrl: fake.url } },
  });
  admin = await t.createOwner('Admin');
});

afterAll(async () => {
  await t.close();
  await fake.close();
});

/** Delivers `payload` as Stripe does: the exact bytes, JSON, with the signature header. */
function deliver(payload: string, signature: string | undefined) {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' };
  if (signature !== undefined) headers['stripe-signature'] = signature;
  return t.request('POST', WEBHOOK, { body: payload, headers });
}

function deliverEvent(event: StripeEvent, options: { secret?: string; timestamp?: number } = {}) {
  // Stripe's own formatting: pretty-printed; the signature covers these exact bytes.
  const payload = JSON.stringify(event, null, 2);
  return deliver(payload, signStripePayload(payload, options.secret ?? SECRET, options.timestamp === undefined ? {} : { timestamp: options.timestamp }));
}

async function planOf(owner: Owner): Promise<string> {
  const res = await t.request('GET', '/api/v1/users/me', { token: owner.token });
  return res.body.data.planId;
}

/** A checkout through the API and the fake, and the event Stripe sends once the customer pays. */
async function paidCheckout(owner: Owner, planId = 'pro'): Promise<StripeEvent> {
  const res = await t.request('POST', '/api/v1/billing/checkout', { token: owner.token, body: { planId } });
  expect(res.status).toBe(200);
  return fake.completeSession(res.body.data.sessionId);
}

async function planChanges(owner: Owner): Promise<any[]> {
  const res = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'billing.plan_change' } });
  return res.body.data;
}

describe('valid signature', () => {
  it('checkout.session.completed moves the payer to the plan bought, with an audit entry', async () => {
    const user = await t.createOwner();
    const event = await paidCheckout(user);
    expect(await planOf(user)).toBe('free');

    const res = await deliverEvent(event);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { received: true, eventId: event.id, duplicate: false, outcome: 'applied' } });
    expect(await planOf(user)).toBe('pro');
    const [entry, ...rest] = await planChanges(user);
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      action: 'billing.plan_change',
      outcome: 'success',
      targetType: 'user',
      targetId: user.id,
      tokenId: null,
      details: { from: 'free', to: 'pro', eventId: event.id, eventType: 'checkout.session.completed', sessionId: event.data.object.id },
    });
  });

  it('any one of several v1 signatures may match (Stripe sends two while a secret is rolled)', async () => {
    const user = await t.createOwner();
    const event = await paidCheckout(user);
    const payload = JSON.stringify(event);
    const stale = createHmac('sha256', 'whsec_previous').update(`${Math.floor(Date.now() / 1000)}.${payload}`).digest('hex');
    const res = await deliver(payload, signStripePayload(payload, SECRET, { extraSignatures: [stale] }));
    expect(res.status).toBe(200);
    expect(await planOf(user)).toBe('pro');
  });

  it('a delivery a few minutes late (within 5 minutes) is accepted', async () => {
    const user = await t.createOwner();
    const res = await deliverEvent(await paidCheckout(user), { timestamp: Math.floor(Date.now() / 1000) - 240 });
    expect(res.status).toBe(200);
    expect(await planOf(user)).toBe('pro');
  });

  it('a completed checkout whose payment is still pending waits for async_payment_succeeded', async () => {
    const user = await t.createOwner();
    const res = await t.request('POST', '/api/v1/billing/checkout', { token: user.token, body: { planId: 'pro' } });
    const pending = fake.completeSession(res.body.data.sessionId, { paymentStatus: 'unpaid' });
    const first = await deliverEvent(pending);
    expect(first.body.data).toMatchObject({ duplicate: false, outcome: 'ignored' });
    expect(await planOf(user)).toBe('free');

    const session = { ...pending.data.object, payment_status: 'paid' };
    const succeeded = await deliverEvent(stripeEvent('checkout.session.async_payment_succeeded', session));
    expect(succeeded.body.data).toMatchObject({ duplicate: false, outcome: 'applied' });
    expect(await planOf(user)).toBe('pro');
  });

  it('customer.subscription.deleted moves the account back to the default plan', async () => {
    const user = await t.createOwner();
    const completed = await paidCheckout(user);
    await deliverEvent(completed);
    expect(await planOf(user)).toBe('pro');
    const subscription = { id: completed.data.object.subscription, object: 'subscription', status: 'canceled', metadata: { userId: user.id, planId: 'pro' } };
    const res = await deliverEvent(stripeEvent('customer.subscription.deleted', subscription));
    expect(res.body.data).toMatchObject({ outcome: 'applied' });
    expect(await planOf(user)).toBe('free');
    expect((await planChanges(user))[0].details).toMatchObject({ from: 'pro', to: 'free', subscriptionId: subscription.id });
  });

  it('a subscription ending after the account moved on changes nothing', async () => {
    const user = await t.createOwner();
    await t.request('PUT', `/api/v1/users/${user.id}/plan`, { token: admin.token, body: { planId: 'pro' } });
    const subscription = { id: 'sub_old', object: 'subscription', metadata: { userId: user.id, planId: 'enterprise' } };
    const res = await deliverEvent(stripeEvent('customer.subscription.deleted', subscription));
    expect(res.body.data).toMatchObject({ outcome: 'ignored' });
    expect(await planOf(user)).toBe('pro');
  });

  it('events Hearth does not use, or that name no known account or plan, are acknowledged and ignored', async () => {
    const user = await t.createOwner();
    const events = [
      stripeEvent('invoice.paid', { id: 'in_1', object: 'invoice' }),
      stripeEvent('checkout.session.completed', { id: 'cs_test_other', object: 'checkout.session', payment_status: 'paid', metadata: {} }),
      stripeEvent('checkout.session.completed', { id: 'cs_test_x', payment_status: 'paid', client_reference_id: 'usr_nobody', metadata: { planId: 'pro' } }),
      stripeEvent('checkout.session.completed', { id: 'cs_test_y', payment_status: 'paid', client_reference_id: user.id, metadata: { planId: 'diamond' } }),
    ];
    for (const event of events) {
      const res = await deliverEvent(event);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ received: true, eventId: event.id, duplicate: false, outcome: 'ignored' });
    }
    expect(await planOf(user)).toBe('free');
  });
});

describe('replayed event', () => {
  it('the same event id acts once: later deliveries answer duplicate and change nothing', async () => {
    const user = await t.createOwner();
    const event = await paidCheckout(user);
    const payload = JSON.stringify(event);
    const signature = signStripePayload(payload, SECRET);

    expect((await deliver(payload, signature)).body.data).toMatchObject({ duplicate: false, outcome: 'applied' });
    expect(await planOf(user)).toBe('pro');

    // The administrator moves the user back; a replay (the same bytes, or freshly signed) must not undo it.
    await t.request('PUT', `/api/v1/users/${user.id}/plan`, { token: admin.token, body: { planId: 'free' } });
    const again = await deliver(payload, signature);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ data: { received: true, eventId: event.id, duplicate: true, outcome: 'applied' } });
    const resigned = await deliver(payload, signStripePayload(payload, SECRET));
    expect(resigned.body.data.duplicate).toBe(true);

    expect(await planOf(user)).toBe('free');
    expect(await planChanges(user)).toHaveLength(1);
  });

  it('concurrent deliveries of one event act once', async () => {
    const user = await t.createOwner();
    const event = await paidCheckout(user);
    const results = await Promise.all([deliverEvent(event), deliverEvent(event), deliverEvent(event)]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(results.filter((r) => r.body.data.duplicate === false)).toHaveLength(1);
    expect(await planChanges(user)).toHaveLength(1);
  });
});

describe('bad signature', () => {
  it('signed with another secret: 400, nothing changes, nothing is recorded', async () => {
    const user = await t.createOwner();
    const event = await paidCheckout(user);
    const res = await deliverEvent(event, { secret: 'whsec_attacker' });
    const error = expectError(res, 400, 'VALIDATION_ERROR');
    expect(error.message).toContain('no signature matches');
    expect((error.details as Array<{ field: string }>).map((d) => d.field)).toEqual(['headers.stripe-signature']);
    expect(await planOf(user)).toBe('free');
    // Not recorded: the genuine delivery still acts.
    expect((await deliverEvent(event)).body.data).toMatchObject({ duplicate: false, outcome: 'applied' });
  });

  it('a body changed after signing: 400', async () => {
    const user = await t.createOwner();
    const event = await paidCheckout(user);
    const payload = JSON.stringify(event);
    const signature = signStripePayload(payload, SECRET);
    const forged = JSON.stringify({ ...event, data: { object: { ...event.data.object, metadata: { userId: user.id, planId: 'pro' }, client_reference_id: admin.id } } });
    expectError(await deliver(forged, signature), 400, 'VALIDATION_ERROR');
    // Even whitespace counts: the signature is over the exact bytes.
    expectError(await deliver(`${payload}\n`, signature), 400, 'VALIDATION_ERROR');
    expect(await planOf(user)).toBe('free');
  });

  it('no header, no timestamp, no v1 signature, or a malformed one: 400', async () => {
    const payload = JSON.stringify(stripeEvent('invoice.paid', { id: 'in_2' }));
    const now = Math.floor(Date.now() / 1000);
    const good = createHmac('sha256', SECRET).update(`${now}.${payload}`).digest('hex');
    for (const header of [undefined, '', 'garbage', `v1=${good}`, `t=${now}`, `t=${now},v0=${good}`, `t=${now},v1=${good.slice(0, 63)}`, `t=abc,v1=${good}`]) {
      const res = await deliver(payload, header);
      expectError(res, 400, 'VALIDATION_ERROR');
    }
    expect((await deliver(payload, `t=${now},v1=${good}`)).status).toBe(200);
  });

  it('a valid signature over something that is not a Stripe event: 400', async () => {
    for (const payload of ['not json', '{"type":"checkout.session.completed"}', '[]']) {
      expectError(await deliver(payload, signStripePayload(payload, SECRET)), 400, 'VALIDATION_ERROR');
    }
  });

  it('the route takes only JSON bodies: 415 otherwise', async () => {
    const payload = JSON.stringify(stripeEvent('invoice.paid', { id: 'in_3' }));
    const res = await t.request('POST', WEBHOOK, { body: payload, headers: { 'content-type': 'text/plain', 'stripe-signature': signStripePayload(payload, SECRET) } });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('stale timestamp', () => {
  it('signed more than 5 minutes ago: 400, nothing changes', async () => {
    const user = await t.createOwner();
    const event = await paidCheckout(user);
    const res = await deliverEvent(event, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(expectError(res, 400, 'VALIDATION_ERROR').message).toContain('timestamp');
    expect(await planOf(user)).toBe('free');
  });

  it('a timestamp far in the future: 400', async () => {
    const user = await t.createOwner();
    const res = await deliverEvent(await paidCheckout(user), { timestamp: Math.floor(Date.now() / 1000) + 3600 });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(await planOf(user)).toBe('free');
  });
});

describe('configuration', () => {
  it('without STRIPE_WEBHOOK_SECRET the webhook answers 503 PROVIDER_NOT_CONFIGURED', async () => {
    const other = await createTestApp({ config: { stripe: { secretKey: undefined, webhookSecret: undefined, apiBaseUrl: 'https://api.stripe.com' } } });
    try {
      const payload = JSON.stringify(stripeEvent('invoice.paid', { id: 'in_4' }));
      const res = await other.request('POST', WEBHOOK, {
        body: payload,
        headers: { 'content-type': 'application/json', 'stripe-signature': signStripePayload(payload, SECRET) },
      });
      expect(expectError(res, 503, 'PROVIDER_NOT_CONFIGURED').message).toContain('STRIPE_WEBHOOK_SECRET');
    } finally {
      await other.close();
    }
  });

  it('the raw-body parser is the webhook\'s alone: other routes still parse JSON', async () => {
    const res = await t.request('POST', '/api/v1/memory', { token: admin.token, body: { content: 'JSON still parses elsewhere' } });
    expect(res.status).toBe(201);
    expect(res.body.data.content).toBe('JSON still parses elsewhere');
  });

  it('needs no token, and a token does not stand in for the signature', async () => {
    const payload = JSON.stringify(stripeEvent('invoice.paid', { id: 'in_5' }));
    const res = await t.request('POST', WEBHOOK, { token: admin.token, body: payload, headers: { 'content-type': 'application/json' } });
    expectError(res, 400, 'VALIDATION_ERROR');
  });
});
