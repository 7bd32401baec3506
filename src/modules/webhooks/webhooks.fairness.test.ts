/**
 * One owner's failing or silent endpoints against everyone else's deliveries: lanes shared
 * fairly, a limit of attempts in flight per webhook (across nodes), caps on what may wait, a
 * rate limit on test events, and the circuit breaker that pauses a webhook that keeps failing.
 * Endpoints are local receivers; one that never answers holds each request open (`hang`).
 */
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/fakes/webhook-receiver.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { loadConfig, type WebhookSettings } from '../../config.js';

const SETTLE = { timeout: 10_000, interval: 20 };

function settings(changes: Partial<WebhookSettings>): WebhookSettings {
  return { ...loadConfig({}).webhooks, firstRetryMs: 30, secondRetryMs: 60, retryForMs: 60_000, testPerMinute: 1_000, ...changes };
}

async function createWebhook(t: TestApp, owner: Owner, url: string, events: string[] = ['token.created']) {
  const res = await t.request('POST', '/api/v1/webhooks', { token: owner.token, body: { url, events } });
  if (res.status !== 201) throw new Error(`createWebhook failed: ${res.status} ${res.text}`);
  return res.body.data as { id: string; secret: string };
}

async function getWebhook(t: TestApp, owner: Owner, id: string) {
  const res = await t.request('GET', `/api/v1/webhooks/${id}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; status: string; enabled: boolean; pausedUntil: string | null; consecutiveFailures: number };
}

async function deliveries(t: TestApp, owner: Owner, id: string) {
  const res = await t.request('GET', `/api/v1/webhooks/${id}/deliveries`, { token: owner.token, query: { limit: 200 } });
  expect(res.status).toBe(200);
  return res.body.data as Array<{ eventType: string; state: string; attemptCount: number; failureReason: string | null; body: string }>;
}

/** The webhook a received `webhook.test` delivery was sent for. */
const webhookOf = (body: string) => (JSON.parse(body) as { data: { webhookId: string } }).data.webhookId;

let t: TestApp | undefined;
let receivers: WebhookReceiver[] = [];
async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}
beforeEach(() => {
  receivers = [];
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const r of receivers) await r.close();
});
afterAll(async () => {
  await t?.close();
});

describe('one owner cannot hold back another owner', () => {
  it("delivers another owner's event while one owner's flood of test events hangs on silent endpoints", async () => {
    // The silent endpoints keep their requests until the time limit: the other owner's delivery
    // must come before the first of them ends (without the fairness rules it waited for all 48).
    t = await createTestApp({ config: { allowPrivateNetwork: true, webhooks: settings({ timeoutMs: 8_000 }) } });
    const hole = await receiver();
    hole.answer(() => 'hang');
    const working = await receiver();
    const flooder = await t.createOwner();
    const other = await t.createOwner();
    const silent = [];
    for (let i = 0; i < 4; i++) silent.push(await createWebhook(t, flooder, `${hole.url}?n=${i}`));
    for (let i = 0; i < 48; i++) {
      const res = await t.request('POST', `/api/v1/webhooks/${silent[i % silent.length]!.id}/test`, { token: flooder.token });
      expect(res.status).toBe(201);
    }
    // The flooder's attempts take the lanes they may take, and hang there.
    await hole.request(4);

    const hook = await createWebhook(t, other, working.url);
    const sent = await t.request('POST', `/api/v1/webhooks/${hook.id}/test`, { token: other.token });
    expect(sent.status).toBe(201);
    const first = await Promise.race([
      working.request(1).then(() => 'the other owner was delivered to'),
      Promise.race(hole.received.map((r) => r.aborted)).then(() => "the flooder's attempts timed out first"),
    ]);
    expect(first).toBe('the other owner was delivered to');

    // Half the process's lanes at most for one owner, two attempts at most per webhook.
    const config = t.config.webhooks;
    expect(hole.received).toHaveLength(config.ownerConcurrency);
    const perWebhook = new Map<string, number>();
    for (const r of hole.received) perWebhook.set(webhookOf(r.body), (perWebhook.get(webhookOf(r.body)) ?? 0) + 1);
    expect(Math.max(...perWebhook.values())).toBeLessThanOrEqual(config.endpointConcurrency);
  });

  it("keeps one webhook's attempts in flight within its limit when two nodes send", async () => {
    t = await createTestApp({ config: { allowPrivateNetwork: true, webhooks: settings({ timeoutMs: 60_000, endpointConcurrency: 2 }) } });
    const { app: node, container } = await t.openNode();
    try {
      const slow = await receiver();
      slow.answer(() => 'hang');
      const owner = await t.createOwner();
      const hook = await createWebhook(t, owner, slow.url);
      const total = 6;
      for (let i = 0; i < total; i++) expect((await t.request('POST', `/api/v1/webhooks/${hook.id}/test`, { token: owner.token })).status).toBe(201);
      // Both nodes look, again and again, while the endpoint holds every answer; each answer
      // frees a lane for the next.
      let seen = 0;
      while (seen < total) {
        t.container.webhookDeliverer.wake();
        container.webhookDeliverer.wake();
        await slow.request(seen + 1);
        seen = slow.received.length;
        slow.release(204);
      }
      await vi.waitFor(async () => expect((await deliveries(t!, owner, hook.id)).filter((d) => d.state === 'delivered')).toHaveLength(total), SETTLE);
      expect(slow.received).toHaveLength(total);
      expect(slow.mostHeld).toBeLessThanOrEqual(2);
    } finally {
      await node.close();
    }
  });
});

describe('limits on what may wait', () => {
  it('rate-limits test events per owner: 429 RATE_LIMITED with Retry-After', async () => {
    t = await createTestApp({ config: { allowPrivateNetwork: true, webhooks: settings({ testPerMinute: 3 }) } });
    const ok = await receiver();
    const owner = await t.createOwner();
    const other = await t.createOwner();
    const hook = await createWebhook(t, owner, ok.url);
    for (let i = 0; i < 3; i++) expect((await t.request('POST', `/api/v1/webhooks/${hook.id}/test`, { token: owner.token })).status).toBe(201);
    const refused = await t.request('POST', `/api/v1/webhooks/${hook.id}/test`, { token: owner.token });
    const error = expectError(refused, 429, 'RATE_LIMITED');
    expect(error.message).toMatch(/webhook test events.*try again in \d+ s/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another owner has a count of its own.
    const theirs = await createWebhook(t, other, ok.url);
    expect((await t.request('POST', `/api/v1/webhooks/${theirs.id}/test`, { token: other.token })).status).toBe(201);
  });

  it('records events past the pending caps as failed, never sent, and refuses test events there with 429', async () => {
    t = await createTestApp({
      config: { allowPrivateNetwork: true, webhooks: settings({ timeoutMs: 60_000, maxPendingPerEndpoint: 2, maxPendingPerOwner: 3 }) },
    });
    const hole = await receiver();
    hole.answer(() => 'hang');
    const owner = await t.createOwner();
    const first = await createWebhook(t, owner, `${hole.url}?first`);
    for (let i = 0; i < 2; i++) expect((await t.request('POST', `/api/v1/webhooks/${first.id}/test`, { token: owner.token })).status).toBe(201);
    const refused = await t.request('POST', `/api/v1/webhooks/${first.id}/test`, { token: owner.token });
    expect(expectError(refused, 429, 'RATE_LIMITED').message).toMatch(/already has 2 deliveries waiting.*\(2\)/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    // An account event: the first webhook is full; the second takes the account's third place.
    const second = await createWebhook(t, owner, `${hole.url}?second`);
    await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'one', scopes: ['memory'] } });
    await vi.waitFor(async () => expect(await deliveries(t!, owner, second.id)).toHaveLength(1), SETTLE);
    const [dropped] = (await deliveries(t, owner, first.id)).filter((d) => d.eventType === 'token.created');
    expect(dropped).toMatchObject({ state: 'failed', attemptCount: 0 });
    expect(dropped!.failureReason).toMatch(/^Not sent: webhook .* already had 2 deliveries waiting/);
    expect((await deliveries(t, owner, second.id)).map((d) => [d.state, d.failureReason])).toEqual([['pending', null]]);

    // The next one finds the account full.
    await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'two', scopes: ['memory'] } });
    await vi.waitFor(async () => expect(await deliveries(t!, owner, second.id)).toHaveLength(2), SETTLE);
    const [latest] = await deliveries(t, owner, second.id);
    expect(latest).toMatchObject({ state: 'failed', attemptCount: 0 });
    expect(latest!.failureReason).toMatch(/this account's webhooks already had 3 deliveries waiting/);
    expect(hole.received.every((r) => !r.body.includes('"name":"two"'))).toBe(true);
  });
});

describe('the circuit breaker', () => {
  it('pauses a webhook that keeps failing, tells the owner, and resumes it on request', async () => {
    t = await createTestApp({
      config: { allowPrivateNetwork: true, webhooks: settings({ pauseAfterFailures: 3, pauseAfterMs: 0, pauseForMs: 3_600_000 }) },
    });
    const failing = await receiver();
    failing.answer(() => 500);
    const monitor = await receiver();
    const owner = await t.createOwner();
    const hook = await createWebhook(t, owner, failing.url);
    const watcher = await createWebhook(t, owner, monitor.url, ['webhook.paused']);
    await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'never acknowledged', scopes: ['memory'] } });

    const told = await monitor.request(1);
    const payload = JSON.parse(told.body) as { type: string; data: Record<string, unknown> };
    expect(payload.type).toBe('webhook.paused');
    expect(payload.data).toMatchObject({ webhookId: hook.id, consecutiveFailures: 3 });
    // Never the address: it may carry a secret, and this event may go elsewhere.
    expect(told.body).not.toContain('127.0.0.1');
    expect(payload.data.lastError).toContain('500');
    expect(failing.received).toHaveLength(3);

    const paused = await getWebhook(t, owner, hook.id);
    expect(paused).toMatchObject({ status: 'paused', enabled: true, consecutiveFailures: 3 });
    expect(Date.parse(paused.pausedUntil!)).toBeGreaterThan(Date.now() + 3_000_000);
    expect((await getWebhook(t, owner, watcher.id)).status).toBe('active');
    // Its deliveries wait, neither sent nor given up.
    expect((await deliveries(t, owner, hook.id)).map((d) => d.state)).toEqual(['pending']);

    failing.answer(() => 204);
    const resumed = await t.request('POST', `/api/v1/webhooks/${hook.id}/resume`, { token: owner.token });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ status: 'active', pausedUntil: null, consecutiveFailures: 0 });
    await vi.waitFor(async () => expect((await deliveries(t!, owner, hook.id)).map((d) => d.state)).toEqual(['delivered']), SETTLE);
    // Resuming one that is not paused answers it as it is; another owner's is not found.
    expect((await t.request('POST', `/api/v1/webhooks/${hook.id}/resume`, { token: owner.token })).body.data.status).toBe('active');
    const stranger = await t.createOwner();
    expectError(await t.request('POST', `/api/v1/webhooks/${hook.id}/resume`, { token: stranger.token }), 404, 'NOT_FOUND');
    expect(monitor.received).toHaveLength(1);
  });

  it('after the cool-down, tries one probe: a failure pauses it again, a success resumes it', async () => {
    t = await createTestApp({
      config: { allowPrivateNetwork: true, webhooks: settings({ pauseAfterFailures: 2, pauseAfterMs: 0, pauseForMs: 300, firstRetryMs: 10, secondRetryMs: 10 }) },
    });
    const failing = await receiver();
    failing.answer(() => 503);
    const owner = await t.createOwner();
    const hook = await createWebhook(t, owner, failing.url);
    for (const name of ['a', 'b', 'c']) await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name, scopes: ['memory'] } });
    await vi.waitFor(async () => expect((await getWebhook(t!, owner, hook.id)).status).toBe('paused'), SETTLE);
    const pausedAt = failing.received.length;
    const firstPause = (await getWebhook(t, owner, hook.id)).pausedUntil!;

    // The probe: one request, which fails, and the pause starts again.
    await failing.request(pausedAt + 1);
    await vi.waitFor(async () => expect((await getWebhook(t!, owner, hook.id)).pausedUntil! > firstPause).toBe(true), SETTLE);
    expect((await getWebhook(t, owner, hook.id)).status).toBe('paused');

    failing.answer(() => 204);
    await vi.waitFor(async () => expect((await deliveries(t!, owner, hook.id)).every((d) => d.state === 'delivered')).toBe(true), SETTLE);
    expect(await getWebhook(t, owner, hook.id)).toMatchObject({ status: 'active', pausedUntil: null, consecutiveFailures: 0 });
  });

  it('a new address or enabling the webhook again also resumes it', async () => {
    t = await createTestApp({
      config: { allowPrivateNetwork: true, webhooks: settings({ pauseAfterFailures: 1, pauseAfterMs: 0, pauseForMs: 3_600_000 }) },
    });
    const failing = await receiver();
    failing.answer(() => 500);
    const fixed = await receiver();
    const owner = await t.createOwner();
    const hook = await createWebhook(t, owner, failing.url);
    await t.request('POST', `/api/v1/webhooks/${hook.id}/test`, { token: owner.token });
    await vi.waitFor(async () => expect((await getWebhook(t!, owner, hook.id)).status).toBe('paused'), SETTLE);
    const moved = await t.request('PATCH', `/api/v1/webhooks/${hook.id}`, { token: owner.token, body: { url: fixed.url } });
    expect(moved.body.data).toMatchObject({ status: 'active', pausedUntil: null, consecutiveFailures: 0 });
    const received = await fixed.request(1);
    expect(JSON.parse(received.body).type).toBe('webhook.test');

    const off = await t.request('PATCH', `/api/v1/webhooks/${hook.id}`, { token: owner.token, body: { enabled: false } });
    expect(off.body.data).toMatchObject({ status: 'disabled', pausedUntil: null });
    expectError(await t.request('POST', `/api/v1/webhooks/${hook.id}/resume`, { token: owner.token }), 409, 'CONFLICT');
  });
});
