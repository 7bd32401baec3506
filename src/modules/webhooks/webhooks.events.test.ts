/**
 * The account events webhooks carry, each caused through the API the way an owner or an
 * attacker would cause it, and received by a local endpoint.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectDaemon, listen } from '../../../test/afp.helpers.js';
import { connectGoogle, startFakeGoogle, type FakeGoogle } from '../../../test/fakes/google.js';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../../test/fakes/webhook-receiver.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET } from '../../../test/google-app.js';
import { loadConfig } from '../../config.js';

/** How long a delivery may take to be recorded, polled every 20 ms. */
const SETTLE = { timeout: 10_000, interval: 20 };

let fake: FakeGoogle;
let t: TestApp;
let receiver: WebhookReceiver;
let admin: Owner;
let owner: Owner;
let secret: string;
let webhookId: string;
let root: string;

type Payload = { type: string; timestamp: string; data: Record<string, unknown> };

beforeAll(async () => {
  fake = await startFakeGoogle({ clientId: GOOGLE_CLIENT_ID, clientSecret: GOOGLE_CLIENT_SECRET });
  t = await createTestApp({
    config: {
      allowPrivateNetwork: true,
      google: { clientId: GOOGLE_CLIENT_ID, clientSecret: GOOGLE_CLIENT_SECRET, endpointOverride: fake.url },
      webhooks: { ...loadConfig({}).webhooks, firstRetryMs: 30, secondRetryMs: 60, retryForMs: 60_000, timeoutMs: 5_000, maxEndpointsPerOwner: 20 },
    },
  });
  receiver = await startWebhookReceiver();
  root = mkdtempSync(path.join(tmpdir(), 'hearth-webhook-afp-'));
  admin = await t.createOwner('Admin');
  owner = await t.createOwner('Owner');
  const res = await t.request('POST', '/api/v1/webhooks', {
    token: owner.token,
    body: { url: receiver.url, events: ['device.online', 'device.offline', 'plan.changed', 'oauth.needs_reauth', 'login.failed', 'token.created'] },
  });
  expect(res.status).toBe(201);
  ({ id: webhookId, secret } = res.body.data);
});
afterAll(async () => {
  await t.close();
  await fake.close();
  await receiver.close();
  rmSync(root, { recursive: true, force: true });
});

/** Resolves with the next delivery (verified) of `type` received after `from` requests. */
async function nextOfType(type: string, from: number): Promise<{ request: ReceivedWebhook; payload: Payload }> {
  for (let n = from + 1; ; n++) {
    const request = await receiver.request(n);
    const payload = new StandardWebhook(secret).verify(request.body, request.headers) as Payload;
    if (payload.type === type) return { request, payload };
  }
}

async function deliveredTypes(): Promise<string[]> {
  const res = await t.request('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token: owner.token, query: { limit: 200 } });
  return (res.body.data as Array<{ eventType: string }>).map((d) => d.eventType);
}

it('plan.changed: the administrator moves the owner to another plan', async () => {
  const plans = (await t.request('GET', '/api/v1/billing/plans')).body.data as Array<{ id: string }>;
  const current = (await t.request('GET', '/api/v1/users/me', { token: owner.token })).body.data.planId;
  const other = plans.find((p) => p.id !== current)!;
  const from = receiver.received.length;
  const res = await t.request('PUT', `/api/v1/users/${owner.id}/plan`, { token: admin.token, body: { planId: other.id } });
  expect(res.status).toBe(200);
  const { payload } = await nextOfType('plan.changed', from);
  expect(payload.data).toEqual({ planId: other.id, previousPlanId: current });
});

it('oauth.needs_reauth: the provider refuses the refresh token', async () => {
  fake.options.accessTokenTtlSeconds = 30;
  expect((await connectGoogle(t, fake, owner)).status).toBe(200);
  fake.options.accessTokenTtlSeconds = 3599;
  fake.revokeAllGrants();
  const from = receiver.received.length;
  expectError(await t.request('GET', '/api/v1/services/google/mail/messages', { token: owner.token }), 403, 'PROVIDER_NOT_CONNECTED');
  const { payload } = await nextOfType('oauth.needs_reauth', from);
  expect(payload.data).toEqual({ provider: 'google' });
});

it('device.online and device.offline: a daemon connects and disconnects', async () => {
  const base = await listen(t);
  const token = await t.tokenWithScopes(owner, ['devices']);
  const from = receiver.received.length;
  const daemon = await connectDaemon(base, { token, name: 'studio-pc', root, privilege: 'read' });
  const online = await nextOfType('device.online', from);
  expect(online.payload.data).toEqual({ deviceId: daemon.deviceId, name: 'studio-pc' });
  const later = receiver.received.length;
  await daemon.link.stop();
  const offline = await nextOfType('device.offline', later);
  expect(offline.payload.data).toEqual({ deviceId: daemon.deviceId, name: 'studio-pc' });
});

// Last: the owner's password sign-ins are slowed down from here on.
it('login.failed: once, when failed passwords start slowing sign-ins down', async () => {
  const from = receiver.received.length;
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) {
    statuses.push((await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'not the password' } })).status);
  }
  // Five refusals, then the slowdown (429).
  expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
  expect(statuses.slice(5)).toEqual([429, 429]);
  const { payload } = await nextOfType('login.failed', from);
  expect(payload.data).toEqual({ userId: owner.id, consecutiveFailures: 5, slowdown: 'address', ip: '127.0.0.1' });
  expect(JSON.stringify(payload)).not.toContain('not the password');

  // A later event, delivered after it: still only the one login.failed.
  const marker = receiver.received.length;
  await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'marker', scopes: ['memory'] } });
  await nextOfType('token.created', marker);
  await vi.waitFor(async () => expect((await deliveredTypes()).filter((type) => type === 'login.failed')).toHaveLength(1), SETTLE);
});

describe('what is not sent', () => {
  it('an event the webhook does not subscribe to', async () => {
    const from = receiver.received.length;
    const res = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'then revoked', scopes: ['memory'] } });
    await t.request('DELETE', `/api/v1/tokens/${res.body.data.id}`, { token: owner.token });
    await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'marker 2', scopes: ['memory'] } });
    await nextOfType('token.created', from);
    expect(await deliveredTypes()).not.toContain('token.revoked');
  });
});
