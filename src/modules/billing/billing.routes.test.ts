import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeStripe, type FakeStripe } from '../../../test/fakes/stripe.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

const PLANS = '/api/v1/billing/plans';
const CHECKOUT = '/api/v1/billing/checkout';
const BASE_URL = 'https://hearth.example';

let fake: FakeStripe;
let t: TestApp;
let admin: Owner;
let user: Owner;

function stripeConfig(overrides: Partial<{ secretKey: string | undefined; webhookSecret: string | undefined; apiBaseUrl: string }> = {}) {
  return { secretKey: fake.secretKey, webhookSecret: 'whsec_routes', apiBaseUrl: fake.url, ...overrides };
}

function plansFile(document: unknown): string {
  const file = path.join(tmpdir(), `hearth-plans-${randomBytes(6).toString('hex')}.json`);
  writeFileSync(file, JSON.stringify(document));
  return file;
}

const unlimited = { memoryEntries: null, knowledgeBytes: null, vaultTokens: null, devices: null, apiRequestsPerDay: null };

beforeAll(async () => {
  fake = await startFakeStripe({ secretKey: 'sk_test_routes_4242' });
  t = await createTestApp({ config: { allowPrivateNetwork: true, planLimits: true, publicBaseUrl: BASE_URL, stripe: stripeConfig() } });
  admin = await t.createOwner('Admin');
  user = await t.createOwner('Customer');
});

afterAll(async () => {
  await t.close();
  await fake.close();
});

describe('GET /billing/plans', () => {
  it('answers the built-in plans without a token: free and a paid plan, prices in cents, every limit', async () => {
    const res = await t.request('GET', PLANS);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        {
          id: 'free',
          name: 'Free',
          price: 0,
          currency: 'usd',
          interval: 'month',
          limits: { memoryEntries: 200, knowledgeBytes: 10 * 1024 * 1024, vaultTokens: 5, devices: 1, apiRequestsPerDay: 5000 },
          purchasable: false,
        },
        {
          id: 'pro',
          name: 'Pro',
          price: 900,
          currency: 'usd',
          interval: 'month',
          limits: { memoryEntries: 10_000, knowledgeBytes: 1024 * 1024 * 1024, vaultTokens: 100, devices: 10, apiRequestsPerDay: 200_000 },
          purchasable: true,
        },
      ],
    });
  });

  it('answers the same with a token, and never shows a Stripe price id', async () => {
    const res = await t.request('GET', PLANS, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('stripePriceId');
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual(['free', 'pro']);
  });

  it('new accounts start on the default plan', async () => {
    const me = await t.request('GET', '/api/v1/users/me', { token: user.token });
    expect(me.body.data.planId).toBe('free');
  });

  it('PLANS_FILE replaces the list; the administrator can move users only to its plans', async () => {
    const file = plansFile({
      defaultPlan: 'starter',
      plans: [
        { id: 'starter', name: 'Starter', price: 0, currency: 'eur', interval: 'year', limits: { ...unlimited, memoryEntries: 10 } },
        { id: 'studio', name: 'Studio', price: 12_000, currency: 'eur', interval: 'year', limits: unlimited, stripePriceId: 'price_studio' },
      ],
    });
    const other = await createTestApp({ config: { plansFile: file } });
    try {
      const res = await other.request('GET', PLANS);
      expect(res.body.data).toEqual([
        { id: 'starter', name: 'Starter', price: 0, currency: 'eur', interval: 'year', limits: { ...unlimited, memoryEntries: 10 }, purchasable: false },
        // This app has no payments configured: a paid plan is listed, not sold.
        { id: 'studio', name: 'Studio', price: 12_000, currency: 'eur', interval: 'year', limits: unlimited, purchasable: false },
      ]);
      const otherAdmin = await other.createOwner();
      const otherUser = await other.createOwner();
      expect((await other.request('GET', '/api/v1/users/me', { token: otherUser.token })).body.data.planId).toBe('starter');
      const moved = await other.request('PUT', `/api/v1/users/${otherUser.id}/plan`, { token: otherAdmin.token, body: { planId: 'studio' } });
      expect(moved.status).toBe(200);
      expect(moved.body.data.planId).toBe('studio');
      const refused = await other.request('PUT', `/api/v1/users/${otherUser.id}/plan`, { token: otherAdmin.token, body: { planId: 'pro' } });
      expect(expectError(refused, 400, 'VALIDATION_ERROR').message).toContain('starter, studio');
    } finally {
      await other.close();
    }
  });
});

describe('POST /billing/checkout', () => {
  it('creates a Stripe Checkout Session and answers its url and id; the plan does not change yet', async () => {
    fake.reset();
    const res = await t.request('POST', CHECKOUT, { token: user.token, body: { planId: 'pro' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/), sessionId: expect.stringMatching(/^cs_test_/) },
    });
    const session = fake.sessions.get(res.body.data.sessionId)!;
    expect(session.url).toBe(res.body.data.url);

    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/checkout/sessions');
    expect(sent.headers.authorization).toBe(`Bearer ${fake.secretKey}`);
    expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(sent.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.headers['stripe-version']).toBe('2024-06-20');
    expect(sent.rawBody).toContain('line_items[0][price_data][recurring][interval]=month');
    expect(sent.params).toEqual({
      mode: 'subscription',
      line_items: [
        {
          price_data: { currency: 'usd', unit_amount: '900', recurring: { interval: 'month' }, product_data: { name: 'Hearth Pro' } },
          quantity: '1',
        },
      ],
      success_url: `${BASE_URL}/api/v1/billing/return?result=success&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${BASE_URL}/api/v1/billing/return?result=cancel`,
      client_reference_id: user.id,
      customer_email: user.email,
      metadata: { userId: user.id, planId: 'pro' },
      subscription_data: { metadata: { userId: user.id, planId: 'pro' } },
    });
    expect(session).toMatchObject({ mode: 'subscription', amount_total: 900, currency: 'usd', client_reference_id: user.id, status: 'open' });

    const me = await t.request('GET', '/api/v1/users/me', { token: user.token });
    expect(me.body.data.planId).toBe('free');
    const audit = await t.request('GET', '/api/v1/audit/log', { token: user.token, query: { action: 'billing.checkout' } });
    expect(audit.body.data[0]).toMatchObject({ action: 'billing.checkout', targetId: 'pro', details: { sessionId: res.body.data.sessionId } });
  });

  it('a login session may check out too, with its own return addresses', async () => {
    fake.reset();
    const session = await t.login(user);
    const res = await t.request('POST', CHECKOUT, {
      token: session,
      body: { planId: 'pro', successUrl: 'https://app.example/paid?s={CHECKOUT_SESSION_ID}', cancelUrl: 'https://app.example/plans' },
    });
    expect(res.status).toBe(200);
    expect(fake.requests[0]!.params).toMatchObject({ success_url: 'https://app.example/paid?s={CHECKOUT_SESSION_ID}', cancel_url: 'https://app.example/plans' });
  });

  it('a repeated checkout is a new Stripe request with a new idempotency key', async () => {
    fake.reset();
    const a = await t.request('POST', CHECKOUT, { token: user.token, body: { planId: 'pro' } });
    const b = await t.request('POST', CHECKOUT, { token: user.token, body: { planId: 'pro' } });
    expect(a.body.data.sessionId).not.toBe(b.body.data.sessionId);
    expect(fake.requests[0]!.headers['idempotency-key']).not.toBe(fake.requests[1]!.headers['idempotency-key']);
  });

  it('a plan with a Stripe price id is charged by that price', async () => {
    fake.addPrice({ id: 'price_hearth_plus', unit_amount: 1500, currency: 'usd', recurring: { interval: 'month' } });
    const file = plansFile([
      { id: 'free', name: 'Free', price: 0, currency: 'usd', interval: 'month', limits: unlimited },
      { id: 'plus', name: 'Plus', price: 1500, currency: 'usd', interval: 'month', limits: unlimited, stripePriceId: 'price_hearth_plus' },
      { id: 'gone', name: 'Gone', price: 1500, currency: 'usd', interval: 'month', limits: unlimited, stripePriceId: 'price_deleted_in_stripe' },
    ]);
    const other = await createTestApp({ config: { allowPrivateNetwork: true, plansFile: file, stripe: stripeConfig() } });
    try {
      const buyer = await other.createOwner();
      fake.reset();
      const res = await other.request('POST', CHECKOUT, { token: buyer.token, body: { planId: 'plus' } });
      expect(res.status).toBe(200);
      expect(fake.requests[0]!.params.line_items).toEqual([{ price: 'price_hearth_plus', quantity: '1' }]);
      expect(fake.sessions.get(res.body.data.sessionId)!.amount_total).toBe(1500);

      // Stripe's own refusal reaches the caller as 502 with Stripe's message.
      const gone = await other.request('POST', CHECKOUT, { token: buyer.token, body: { planId: 'gone' } });
      const body = expectError(gone, 502, 'UPSTREAM_ERROR');
      expect(body.message).toContain("No such price: 'price_deleted_in_stripe'");
      expect(body.details).toMatchObject({ provider: 'stripe', status: 400, type: 'invalid_request_error', code: 'resource_missing', param: 'line_items[0][price]' });
    } finally {
      await other.close();
    }
  });

  describe('errors', () => {
    it('unknown plan: 400 naming the known plans, and Stripe is not called', async () => {
      fake.reset();
      const res = await t.request('POST', CHECKOUT, { token: user.token, body: { planId: 'platinum' } });
      expect(expectError(res, 400, 'VALIDATION_ERROR').message).toContain('free, pro');
      expect(fake.requests).toHaveLength(0);
    });

    it('the free plan needs no checkout: 400', async () => {
      const res = await t.request('POST', CHECKOUT, { token: user.token, body: { planId: 'free' } });
      const error = expectError(res, 400, 'VALIDATION_ERROR');
      expect(error.message).toContain('free');
      expect(error.details).toEqual([{ field: 'body.planId', message: 'must be a paid plan' }]);
    });

    it('missing or extra body fields, bad return addresses: 400', async () => {
      expectError(await t.request('POST', CHECKOUT, { token: user.token, body: {} }), 400, 'VALIDATION_ERROR');
      expectError(await t.request('POST', CHECKOUT, { token: user.token, body: { planId: 'pro', coupon: 'x' } }), 400, 'VALIDATION_ERROR');
      expectError(await t.request('POST', CHECKOUT, { token: user.token, body: { planId: 'pro', successUrl: 'javascript:alert(1)' } }), 400, 'VALIDATION_ERROR');
      const cancel = expectError(await t.request('POST', CHECKOUT, { token: user.token, body: { planId: 'pro', cancelUrl: 'https://[not-a-host' } }), 400, 'VALIDATION_ERROR');
      expect(cancel.details).toEqual([{ field: 'body.cancelUrl', message: 'must be an http(s) address' }]);
    });

    it('already on the plan: 409', async () => {
      const buyer = await t.createOwner();
      await t.request('PUT', `/api/v1/users/${buyer.id}/plan`, { token: admin.token, body: { planId: 'pro' } });
      expectError(await t.request('POST', CHECKOUT, { token: buyer.token, body: { planId: 'pro' } }), 409, 'CONFLICT');
    });

    it('Stripe is down: 502 with its message', async () => {
      fake.failNext(500, { type: 'api_error', message: 'An unknown error occurred' });
      const res = await t.request('POST', CHECKOUT, { token: user.token, body: { planId: 'pro' } });
      const body = expectError(res, 502, 'UPSTREAM_ERROR');
      expect(body.message).toContain('An unknown error occurred');
      expect(body.details).toMatchObject({ status: 500, type: 'api_error' });
    });

    it('Stripe refuses the secret key: 502, without any part of the key', async () => {
      const other = await createTestApp({ config: { allowPrivateNetwork: true, stripe: stripeConfig({ secretKey: 'sk_test_wrong_key_9876' }) } });
      try {
        const buyer = await other.createOwner();
        const res = await other.request('POST', CHECKOUT, { token: buyer.token, body: { planId: 'pro' } });
        expect(expectError(res, 502, 'UPSTREAM_ERROR').message).toContain('STRIPE_SECRET_KEY');
        expect(res.text).not.toContain('9876');
        expect(res.text).not.toContain('sk_test');
      } finally {
        await other.close();
      }
    });

    it('Stripe unreachable: 502', async () => {
      const closed = await startFakeStripe();
      const url = closed.url;
      await closed.close();
      const other = await createTestApp({ config: { allowPrivateNetwork: true, stripe: stripeConfig({ apiBaseUrl: url }) } });
      try {
        const buyer = await other.createOwner();
        expectError(await other.request('POST', CHECKOUT, { token: buyer.token, body: { planId: 'pro' } }), 502, 'UPSTREAM_ERROR');
      } finally {
        await other.close();
      }
    });

    it('the call goes through the guarded client: a private Stripe address is refused unless allowed', async () => {
      fake.reset();
      const other = await createTestApp({ config: { allowPrivateNetwork: false, stripe: stripeConfig() } });
      try {
        const buyer = await other.createOwner();
        const res = await other.request('POST', CHECKOUT, { token: buyer.token, body: { planId: 'pro' } });
        expect(expectError(res, 502, 'UPSTREAM_ERROR').message).toContain('Refusing to call');
        expect(fake.requests).toHaveLength(0);
      } finally {
        await other.close();
      }
    });

    it('payments not configured (no STRIPE_SECRET_KEY): 503 PROVIDER_NOT_CONFIGURED; the plans are still listed', async () => {
      const other = await createTestApp({ config: { stripe: { secretKey: undefined, webhookSecret: undefined, apiBaseUrl: 'https://api.stripe.com' } } });
      try {
        const buyer = await other.createOwner();
        const res = await other.request('POST', CHECKOUT, { token: buyer.token, body: { planId: 'pro' } });
        expect(expectError(res, 503, 'PROVIDER_NOT_CONFIGURED').message).toContain('STRIPE_SECRET_KEY');
        // Listed, but not offered for sale: nothing could take the payment.
        const plans = await other.request('GET', PLANS);
        expect(plans.status).toBe(200);
        expect(plans.body.data.map((p: { id: string; purchasable: boolean }) => [p.id, p.purchasable])).toEqual([
          ['free', false],
          ['pro', false],
        ]);
      } finally {
        await other.close();
      }
    });
  });

  describe('security', () => {
    it('no token: 401', async () => {
      expectError(await t.request('POST', CHECKOUT, { body: { planId: 'pro' } }), 401, 'UNAUTHORIZED');
    });

    it('an API token, even with every scope, may not spend the owner\'s money: 403', async () => {
      fake.reset();
      const token = await t.tokenWithScopes(user, ['read', 'identity', 'memory', 'knowledge', 'vault', 'marketplace']);
      expectError(await t.request('POST', CHECKOUT, { token, body: { planId: 'pro' } }), 403, 'FORBIDDEN');
      expect(fake.requests).toHaveLength(0);
    });

    it('a revoked token: 401', async () => {
      const session = await t.login(user);
      await t.request('POST', '/api/v1/auth/logout', { token: session });
      expectError(await t.request('POST', CHECKOUT, { token: session, body: { planId: 'pro' } }), 401, 'UNAUTHORIZED');
    });
  });
});

describe('GET /billing/return', () => {
  it('answers a short HTML page where Stripe sends the browser back, never a redirect', async () => {
    const ok = await t.request('GET', '/api/v1/billing/return', { query: { result: 'success', session_id: 'cs_test_x' } });
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toContain('text/html');
    expect(ok.text).toContain('Payment received');
    // Its address carries Stripe's session id: it is not kept, sent on or framed, and the page
    // loads nothing but its style sheet and posts nowhere.
    expect(ok.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; form-action 'none'; base-uri 'none'; frame-ancestors 'none'$/);
    expect(ok.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-store', 'x-frame-options': 'DENY' });
    expect(ok.text).toContain('<title>Payment received · Hearth</title>');
    expect(ok.text).not.toContain('style="');
    const cancel = await t.request('GET', '/api/v1/billing/return', { query: { result: 'cancel' } });
    expect(cancel.text).toContain('Checkout cancelled');
    // The page shows only its own words: anything else in the address is refused or left out.
    expectError(await t.request('GET', '/api/v1/billing/return', { query: { result: '<script>' } }), 400, 'VALIDATION_ERROR');
    const hostileSession = await t.request('GET', '/api/v1/billing/return', { query: { result: 'success', session_id: '<script>alert(1)</script>' } });
    expect(hostileSession.status).toBe(200);
    expect(hostileSession.text).not.toContain('<script');
  });
});
