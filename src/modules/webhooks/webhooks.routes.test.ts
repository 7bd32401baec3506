import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../../test/fakes/webhook-receiver.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { loadConfig } from '../../config.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';

/** How long a delivery may take to be recorded, polled every 20 ms. */
const SETTLE = { timeout: 10_000, interval: 20 };

/**
 * Retries in milliseconds, not seconds: the schedule's shape is the same. One owner may take
 * every lane and one webhook as many as that: the two-node test below holds twelve attempts to
 * one webhook in flight at once (the fairness limits have their own tests).
 */
const FAST = {
  ...loadConfig({}).webhooks,
  firstRetryMs: 30,
  secondRetryMs: 60,
  retryForMs: 60_000,
  timeoutMs: 5_000,
  maxEndpointsPerOwner: 3,
  ownerConcurrency: 8,
  endpointConcurrency: 16,
};

/** Checks a delivery with the Standard Webhooks reference library; answers the payload it verified. */
function verified(secret: string, request: ReceivedWebhook): { type: string; timestamp: string; data: Record<string, unknown> } {
  return new StandardWebhook(secret).verify(request.body, request.headers) as never;
}

async function createWebhook(t: TestApp, owner: Owner, body: Record<string, unknown>) {
  const res = await t.request('POST', '/api/v1/webhooks', { token: owner.token, body });
  if (res.status !== 201) throw new Error(`createWebhook failed: ${res.status} ${res.text}`);
  return res.body.data as { id: string; url: string; events: string[]; enabled: boolean; secret: string };
}

async function createToken(t: TestApp, owner: Owner, name: string): Promise<string> {
  const res = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name, scopes: ['memory'] } });
  if (res.status !== 201) throw new Error(`createToken failed: ${res.status} ${res.text}`);
  return res.body.data.id ?? res.body.data.record?.id;
}

async function deliveries(t: TestApp, owner: Owner, webhookId: string) {
  const res = await t.request('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.data as Array<{
    id: string;
    eventId: string;
    eventType: string;
    state: string;
    body: string;
    attemptCount: number;
    nextAttemptAt: string | null;
    attempts: Array<{ outcome: string; responseStatus: number | null; error: string | null; durationMs: number }>;
  }>;
}

describe('webhooks on a server that may call private addresses', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let owner: Owner;
  let other: Owner;

  beforeAll(async () => {
    t = await createTestApp({ config: { allowPrivateNetwork: true, webhooks: FAST } });
    receiver = await startWebhookReceiver();
    owner = await t.createOwner();
    other = await t.createOwner();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('answers the secret once, in the Standard Webhooks form; listing and reading never show it', async () => {
    const created = await createWebhook(t, owner, { url: `${receiver.url}?first`, events: ['handshake.created', 'approval.requested'] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    expect(created).toMatchObject({ url: `${receiver.url}?first`, events: ['handshake.created', 'approval.requested'], enabled: true });

    const list = await t.request('GET', '/api/v1/webhooks', { token: owner.token });
    const one = await t.request('GET', `/api/v1/webhooks/${created.id}`, { token: owner.token });
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(created.id);
    for (const text of [list.text, one.text]) {
      expect(text).not.toContain(created.secret.slice(6, 30));
      expect(text).not.toContain('secret');
    }
    // At rest it is sealed by the owner's vault key, never in the clear.
    const row = await t.storage.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(created.secret.slice(6, 30));
    expect(row.secret_sealed).toMatch(/^v1\./);
    await t.request('DELETE', `/api/v1/webhooks/${created.id}`, { token: owner.token });
  });

  it('signs each delivery as Standard Webhooks defines; the payload carries ids and names, never secrets', async () => {
    const hook = await createWebhook(t, owner, { url: receiver.url, events: ['token.created', 'token.revoked'] });
    const before = receiver.received.length;
    const res = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'for the build', scopes: ['memory'] } });
    expect(res.status).toBe(201);
    const request = await receiver.request(before + 1);
    const payload = verified(hook.secret, request);
    expect(payload.type).toBe('token.created');
    expect(Date.parse(payload.timestamp)).not.toBeNaN();
    expect(payload.data).toMatchObject({ name: 'for the build', kind: 'api', scopes: ['memory'] });
    expect(request.body).not.toContain(res.body.data.token);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toMatch(/^evt_/);
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    // Another secret does not verify it.
    expect(() => new StandardWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request.body, request.headers)).toThrow();
    await t.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: owner.token });
  });

  it('retries a failed delivery with the same webhook-id, and lists it with its attempts', async () => {
    const hook = await createWebhook(t, owner, { url: receiver.url, events: ['token.created'] });
    const start = receiver.received.length;
    // Two failures, then success.
    receiver.answer((_request, index) => (index <= start + 2 ? 503 : 200));
    await createToken(t, owner, 'retried');
    const [first, second, third] = await Promise.all([receiver.request(start + 1), receiver.request(start + 2), receiver.request(start + 3)]);
    receiver.answer(() => 204);
    const id = first.headers['webhook-id'];
    expect(second.headers['webhook-id']).toBe(id);
    expect(third.headers['webhook-id']).toBe(id);
    expect(first.body).toBe(third.body);
    for (const request of [first, second, third]) expect(verified(hook.secret, request).type).toBe('token.created');

    await vi.waitFor(async () => expect((await deliveries(t, owner, hook.id))[0]?.state).toBe('delivered'), SETTLE);
    const [delivery] = await deliveries(t, owner, hook.id);
    expect(delivery).toMatchObject({ eventId: id, eventType: 'token.created', attemptCount: 3, nextAttemptAt: null, body: first.body });
    expect(delivery!.attempts.map((a) => [a.outcome, a.responseStatus])).toEqual([
      ['failed', 503],
      ['failed', 503],
      ['succeeded', 200],
    ]);
    expect(delivery!.attempts[0]!.error).toContain('503');
    expect(delivery!.attempts[2]!.error).toBeNull();
    await t.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: owner.token });
  });

  it('sends a webhook.test event to one webhook on request', async () => {
    const hook = await createWebhook(t, owner, { url: receiver.url, events: ['plan.changed'] });
    const before = receiver.received.length;
    const res = await t.request('POST', `/api/v1/webhooks/${hook.id}/test`, { token: owner.token });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ webhookId: hook.id, eventType: 'webhook.test', state: 'pending', attempts: [] });
    const request = await receiver.request(before + 1);
    expect(request.headers['webhook-id']).toBe(res.body.data.eventId);
    expect(verified(hook.secret, request)).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.id } });
    await t.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: owner.token });
  });

  it('sends nothing to another owner, and answers 404 for a webhook of another owner', async () => {
    const hook = await createWebhook(t, owner, { url: receiver.url, events: ['token.created'] });
    const before = receiver.received.length;
    await createToken(t, other, 'not yours');
    await createToken(t, owner, 'yours');
    const request = await receiver.request(before + 1);
    expect(verified(hook.secret, request).data).toMatchObject({ name: 'yours' });

    for (const [method, path, body] of [
      ['GET', `/api/v1/webhooks/${hook.id}`, undefined],
      ['PATCH', `/api/v1/webhooks/${hook.id}`, { enabled: false }],
      ['DELETE', `/api/v1/webhooks/${hook.id}`, undefined],
      ['POST', `/api/v1/webhooks/${hook.id}/test`, undefined],
      ['GET', `/api/v1/webhooks/${hook.id}/deliveries`, undefined],
    ] as const) {
      expectError(await t.request(method, path, { token: other.token, body }), 404, 'NOT_FOUND');
    }
    expect((await t.request('GET', '/api/v1/webhooks', { token: other.token })).body.data).toEqual([]);
    expect((await t.request('GET', `/api/v1/webhooks/${hook.id}`, { token: owner.token })).body.data.enabled).toBe(true);
    await t.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: owner.token });
  });

  it('is the owner\'s alone: a token with every scope but no owner right is refused', async () => {
    const scoped = await t.tokenWithScopes(owner, ['memory', 'vault', 'devices']);
    expectError(await t.request('GET', '/api/v1/webhooks', { token: scoped }), 403, 'FORBIDDEN');
    const session = await t.login(owner);
    expect((await t.request('GET', '/api/v1/webhooks', { token: session })).status).toBe(200);
  });

  it('updates the address and events, and a disabled webhook is sent nothing', async () => {
    const hook = await createWebhook(t, owner, { url: `${receiver.url}?old`, events: ['token.revoked'] });
    const updated = await t.request('PATCH', `/api/v1/webhooks/${hook.id}`, {
      token: owner.token,
      body: { url: receiver.url, events: ['token.created'] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ url: receiver.url, events: ['token.created'], enabled: true });

    // Disabled while its endpoint is stuck: the pending delivery is given up, not sent again.
    receiver.answer(() => 500);
    const before = receiver.received.length;
    await createToken(t, owner, 'before disabling');
    await receiver.request(before + 1);
    const disabled = await t.request('PATCH', `/api/v1/webhooks/${hook.id}`, { token: owner.token, body: { enabled: false } });
    expect(disabled.body.data.enabled).toBe(false);
    receiver.answer(() => 204);
    await vi.waitFor(async () => expect((await deliveries(t, owner, hook.id))[0]?.state).toBe('failed'), SETTLE);
    expectError(await t.request('POST', `/api/v1/webhooks/${hook.id}/test`, { token: owner.token }), 409, 'CONFLICT');

    // Nothing new is stored for it while disabled; enabling it again resumes deliveries.
    await createToken(t, owner, 'while disabled');
    await t.request('PATCH', `/api/v1/webhooks/${hook.id}`, { token: owner.token, body: { enabled: true } });
    const afterEnable = receiver.received.length;
    await createToken(t, owner, 'after enabling');
    // (An attempt already under way when it was disabled may still land first; it is not recorded.)
    for (let n = afterEnable + 1; ; n++) {
      const data = verified(hook.secret, await receiver.request(n)).data;
      if (data.name === 'after enabling') break;
      expect(data.name).toBe('before disabling');
    }
    const list = await deliveries(t, owner, hook.id);
    expect(list.map((d) => JSON.parse(d.body).data.name)).not.toContain('while disabled');
  });

  it('deletes a webhook with its deliveries', async () => {
    const hook = await createWebhook(t, owner, { url: receiver.url, events: ['token.created'] });
    const res = await t.request('POST', `/api/v1/webhooks/${hook.id}/test`, { token: owner.token });
    expect(res.status).toBe(201);
    const deleted = await t.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: owner.token });
    expect(deleted.body).toEqual({ data: { id: hook.id, deleted: true } });
    expectError(await t.request('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { token: owner.token }), 404, 'NOT_FOUND');
    const left = await t.storage.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', hook.id).execute();
    expect(left).toEqual([]);
    expectError(await t.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: owner.token }), 404, 'NOT_FOUND');
  });

  it('refuses unknown events, empty lists and bad addresses, with what to fix', async () => {
    const bad = [
      { url: receiver.url, events: ['token.exploded'] },
      { url: receiver.url, events: [] },
      { url: receiver.url, events: ['token.created', 'token.created'] },
      { url: 'ftp://example.com/hooks', events: ['token.created'] },
      { url: 'not an address', events: ['token.created'] },
      { url: 'https://user:pw@example.com/hooks', events: ['token.created'] },
      { url: receiver.url, events: ['token.created'], secret: 'mine' },
      { url: receiver.url, events: ['webhook.test'] },
    ];
    for (const body of bad) {
      const error = expectError(await t.request('POST', '/api/v1/webhooks', { token: owner.token, body }), 400, 'VALIDATION_ERROR');
      expect(error.message.length).toBeGreaterThan(10);
    }
    expectError(await t.request('PATCH', '/api/v1/webhooks/whk_x', { token: owner.token, body: {} }), 400, 'VALIDATION_ERROR');
  });

  it('holds at most the configured number of webhooks per owner', async () => {
    const owner3 = await t.createOwner();
    for (let i = 0; i < FAST.maxEndpointsPerOwner; i++) await createWebhook(t, owner3, { url: receiver.url, events: ['token.created'] });
    const error = expectError(
      await t.request('POST', '/api/v1/webhooks', { token: owner3.token, body: { url: receiver.url, events: ['token.created'] } }),
      409,
      'CONFLICT',
    );
    expect(error.message).toContain(String(FAST.maxEndpointsPerOwner));
  });

  it('gives a delivery up once its retry window has passed', async () => {
    // A window of a second: a first attempt made late on a busy machine still leaves a retry in it.
    const t2 = await createTestApp({ config: { allowPrivateNetwork: true, webhooks: { ...FAST, retryForMs: 1_000 } } });
    const stuck = await startWebhookReceiver();
    stuck.answer(() => 500);
    try {
      const owner2 = await t2.createOwner();
      const hook = await createWebhook(t2, owner2, { url: stuck.url, events: ['token.created'] });
      await createToken(t2, owner2, 'never acknowledged');
      await vi.waitFor(async () => expect((await deliveries(t2, owner2, hook.id))[0]?.state).toBe('failed'), SETTLE);
      const [delivery] = await deliveries(t2, owner2, hook.id);
      // Retried after 30 ms, then 60 ms, then 120 ms…, until the next would fall past a second.
      expect(delivery!.attemptCount).toBeGreaterThanOrEqual(2);
      expect(delivery!.attempts).toHaveLength(delivery!.attemptCount);
      expect(delivery!.attempts.every((a) => a.outcome === 'failed' && a.responseStatus === 500)).toBe(true);
      expect(delivery!.nextAttemptAt).toBeNull();
      expect(new Set(stuck.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    } finally {
      await t2.close();
      await stuck.close();
    }
  });

  it('sends each delivery once when two nodes share the database', async () => {
    const { app, container } = await t.openNode();
    const shared = await startWebhookReceiver();
    try {
      const hook = await createWebhook(t, owner, { url: shared.url, events: ['token.created'] });
      // Both nodes hear the same events (as a bus carried across nodes will): one row per event.
      const heard = Array.from({ length: 3 }, (_, i) => ({
        id: newId('evt'),
        type: 'token.created' as const,
        occurredAt: isoNow(),
        data: { tokenId: newId('tok'), name: `heard twice ${i}`, kind: 'api' as const, scopes: ['memory' as const] },
      }));
      await Promise.all(heard.flatMap((event) => [t.container.webhooks.enqueue(owner.id, event), container.webhooks.enqueue(owner.id, event)]));
      await vi.waitFor(async () => expect((await deliveries(t, owner, hook.id)).filter((d) => d.state === 'delivered')).toHaveLength(heard.length), SETTLE);

      // Deliveries a node stored and could not send (it stopped): due on both nodes at once.
      shared.answer(() => 'hang');
      const now = isoNow();
      const left = Array.from({ length: 12 }, (_, i) => {
        const eventId = newId('evt');
        return {
          id: newId('whd'),
          owner_id: owner.id,
          endpoint_id: hook.id,
          event_id: eventId,
          event_type: 'token.created',
          body: JSON.stringify({ type: 'token.created', timestamp: now, data: { name: `left behind ${i}` } }),
          state: 'pending' as const,
          attempt_count: 0,
          next_attempt_at: now,
          lease: null,
          lease_until: null,
          created_at: now,
          updated_at: now,
        };
      });
      await t.storage.db.insertInto('webhook_deliveries').values(left).execute();
      t.container.webhookDeliverer.wake();
      container.webhookDeliverer.wake();
      // Every row is sent once while the answers are held; more looks change nothing.
      await shared.request(left.length);
      t.container.webhookDeliverer.wake();
      container.webhookDeliverer.wake();
      shared.answer(() => 200);
      shared.release(200);
      const total = heard.length + left.length;
      await vi.waitFor(async () => expect((await deliveries(t, owner, hook.id)).filter((d) => d.state === 'delivered')).toHaveLength(total), SETTLE);
      const list = await deliveries(t, owner, hook.id);
      expect(list).toHaveLength(total);
      for (const delivery of list) {
        expect(shared.withId(delivery.eventId)).toHaveLength(1);
        expect(delivery.attempts).toHaveLength(1);
      }
      expect(shared.received).toHaveLength(total);
    } finally {
      await app.close();
      await shared.close();
    }
  });

  it('stops on close, giving back an attempt in flight, which the next start sends', async () => {
    const slow = await startWebhookReceiver();
    // The first request is held until the client gives up; the next is acknowledged.
    slow.answer((_request, index) => (index === 1 ? 'hang' : 200));
    const hook = await createWebhook(t, owner, { url: slow.url, events: ['token.created'] });
    await createToken(t, owner, 'across a restart');
    const first = await slow.request(1);
    await t.restart();
    // The close aborted the request in flight instead of waiting for it.
    await first.aborted;

    // The new process's worker takes it up at start, with the same id.
    const second = await slow.request(2);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verified(hook.secret, second).data).toMatchObject({ name: 'across a restart' });
    await vi.waitFor(async () => expect((await deliveries(t, owner, hook.id))[0]?.state).toBe('delivered'), SETTLE);
    // The attempt shutdown cut short is not counted against the delivery.
    const [delivery] = await deliveries(t, owner, hook.id);
    expect(delivery!.attempts.map((a) => a.outcome)).toEqual(['succeeded']);
    expect(slow.received).toHaveLength(2);
    await slow.close();
  });
});

describe('webhooks on a server that calls public addresses only', () => {
  let t: TestApp;
  let owner: Owner;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await createTestApp({ config: { allowPrivateNetwork: false, webhooks: FAST } });
    owner = await t.createOwner();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('refuses http, loopback and private addresses when they are created', async () => {
    for (const url of [receiver.url, 'https://127.0.0.1/hooks', 'https://10.1.2.3/hooks', 'https://localhost:8443/hooks', 'https://[::1]/hooks', 'http://example.com/hooks']) {
      const error = expectError(await t.request('POST', '/api/v1/webhooks', { token: owner.token, body: { url, events: ['token.created'] } }), 400, 'VALIDATION_ERROR');
      expect(error.message).toMatch(/https|private/);
    }
  });

  it('refuses every other spelling of a loopback, private or unspecified host when created or changed', async () => {
    const forms = [
      'https://localhost./hooks',
      'https://LOCALHOST/hooks',
      'https://LocalHost.:8443/hooks',
      'https://foo.localhost/hooks',
      'https://foo.localhost./hooks',
      'https://[::1]/hooks',
      'https://[::]/hooks',
      'https://0.0.0.0/hooks',
      'https://0/hooks',
      'https://2130706433/hooks',
      'https://0x7f.1/hooks',
      'https://0x7f000001/hooks',
      'https://0177.0.0.1/hooks',
      'https://127.1/hooks',
      'https://127.0.0.1./hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://[::ffff:7f00:1]/hooks',
      'https://[::ffff:169.254.169.254]/hooks',
      'https://[64:ff9b::a00:1]/hooks',
      'https://169.254.169.254/latest/meta-data',
    ];
    const hook = await createWebhook(t, owner, { url: 'https://hooks.example.com/hearth', events: ['token.created'] });
    for (const url of forms) {
      const created = expectError(await t.request('POST', '/api/v1/webhooks', { token: owner.token, body: { url, events: ['token.created'] } }), 400, 'VALIDATION_ERROR');
      expect(created.message, url).toMatch(/loopback, private or reserved address.*ALLOW_PRIVATE_NETWORK/);
      expectError(await t.request('PATCH', `/api/v1/webhooks/${hook.id}`, { token: owner.token, body: { url } }), 400, 'VALIDATION_ERROR');
    }
    // Public names and addresses that merely look alike are accepted.
    for (const url of ['https://localhost.example.com/hooks', 'https://mylocalhost/hooks', 'https://8.8.8.8/hooks', 'https://[2606:4700::1111]/hooks']) {
      expect((await t.request('PATCH', `/api/v1/webhooks/${hook.id}`, { token: owner.token, body: { url } })).status, url).toBe(200);
    }
    await t.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: owner.token });
  });

  it('refuses, when it delivers, an address that resolves to a private one', async () => {
    const hook = await createWebhook(t, owner, { url: 'https://hooks.example.com/hearth', events: ['token.created'] });
    // A name that now resolves to loopback (as a rebinding attacker's does): the guarded client refuses it.
    const port = new URL(receiver.url).port;
    await t.storage.db.updateTable('webhook_endpoints').set({ url: `https://localhost:${port}/hooks` }).where('id', '=', hook.id).execute();
    await createToken(t, owner, 'rebinding');
    await vi.waitFor(async () => expect((await deliveries(t, owner, hook.id))[0]?.attemptCount).toBeGreaterThan(0), SETTLE);
    const [delivery] = await deliveries(t, owner, hook.id);
    expect(delivery!.attempts[0]).toMatchObject({ outcome: 'failed', responseStatus: null });
    expect(delivery!.attempts[0]!.error).toMatch(/loopback, private/);
    expect(receiver.received).toEqual([]);
  });
});
