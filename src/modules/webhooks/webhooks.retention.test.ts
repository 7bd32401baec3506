/**
 * The retention rule: finished deliveries (delivered or failed) and their attempts are deleted
 * once they finished more than WEBHOOK_DELIVERY_RETENTION_DAYS ago; pending ones never are. Rows
 * are written with old times directly, and the sweep is called directly or through the worker,
 * whose own worker in the test app is stopped first so that only the test prunes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestApp, ENGINE, type Owner, type TestApp } from '../../../test/harness.js';
import { newId } from '../../lib/ids.js';
import { createWebhookDeliverer, PRUNE_BATCH, pruneDeliveries } from './webhooks.deliverer.js';
import { createWebhooksRepo, type AttemptRow, type DeliveryRow, type WebhooksRepo } from './webhooks.repo.js';

const DAY_MS = 24 * 3_600_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A test app whose own worker is stopped, and a repository on its database. */
async function setUp(): Promise<{ t: TestApp; repo: WebhooksRepo }> {
  t = await createTestApp();
  await t.container.webhookDeliverer.close();
  return { t, repo: createWebhooksRepo(t.storage.db, t.storage.dialect) };
}

async function endpoint(t: TestApp, owner: Owner): Promise<string> {
  const id = newId('whk');
  const now = daysAgo(400);
  await t.storage.db
    .insertInto('webhook_endpoints')
    .values({
      id,
      owner_id: owner.id,
      url: 'https://hooks.example.test/in',
      events: JSON.stringify(['token.created']),
      enabled: 1,
      secret_sealed: 'not opened by these tests',
      created_at: now,
      updated_at: now,
      consecutive_failures: 0,
      failing_since: null,
      paused_until: null,
    })
    .execute();
  return id;
}

interface Spec {
  state: DeliveryRow['state'];
  /** When the event was stored, and when the delivery last changed (when it finished, once finished). */
  createdDaysAgo: number;
  updatedDaysAgo: number;
  attempts: number;
}

/** Stores deliveries with their attempts, in chunks that stay within both engines' parameter limits; answers their ids. */
async function store(t: TestApp, owner: Owner, endpointId: string, specs: Spec[]): Promise<string[]> {
  const deliveries: DeliveryRow[] = [];
  const attempts: AttemptRow[] = [];
  for (const spec of specs) {
    const id = newId('whd');
    const finished = spec.state !== 'pending';
    deliveries.push({
      id,
      owner_id: owner.id,
      endpoint_id: endpointId,
      event_id: newId('evt'),
      event_type: 'token.created',
      body: JSON.stringify({ type: 'token.created', data: { name: 'kept or not' } }),
      state: spec.state,
      attempt_count: spec.attempts,
      next_attempt_at: finished ? null : daysAgo(spec.updatedDaysAgo),
      lease: null,
      lease_until: null,
      failure_reason: spec.state === 'failed' && spec.attempts === 0 ? 'The webhook has too many deliveries waiting' : null,
      created_at: daysAgo(spec.createdDaysAgo),
      updated_at: daysAgo(spec.updatedDaysAgo),
    });
    for (let i = 0; i < spec.attempts; i++) {
      const last = i === spec.attempts - 1;
      attempts.push({
        id: newId('wha'),
        delivery_id: id,
        attempted_at: daysAgo(last ? spec.updatedDaysAgo : spec.createdDaysAgo),
        outcome: last && spec.state === 'delivered' ? 'succeeded' : 'failed',
        response_status: last && spec.state === 'delivered' ? 204 : 503,
        error: last && spec.state === 'delivered' ? null : 'The endpoint answered HTTP 503',
        duration_ms: 12,
      });
    }
  }
  for (let i = 0; i < deliveries.length; i += 200) await t.storage.db.insertInto('webhook_deliveries').values(deliveries.slice(i, i + 200)).execute();
  for (let i = 0; i < attempts.length; i += 200) await t.storage.db.insertInto('webhook_attempts').values(attempts.slice(i, i + 200)).execute();
  return deliveries.map((row) => row.id);
}

async function remaining(t: TestApp, ids: string[]): Promise<{ deliveries: string[]; attempts: number }> {
  const deliveries: string[] = [];
  let attempts = 0;
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await t.storage.db.selectFrom('webhook_deliveries').select('id').where('id', 'in', chunk).execute();
    deliveries.push(...rows.map((row) => row.id));
    const counted = await t.storage.db
      .selectFrom('webhook_attempts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('delivery_id', 'in', chunk)
      .executeTakeFirstOrThrow();
    attempts += Number(counted.n);
  }
  return { deliveries: deliveries.sort(), attempts };
}

/** The repository, with each batch's count of deleted deliveries noted. */
function counting(repo: WebhooksRepo): { repo: WebhooksRepo; batches: number[] } {
  const batches: number[] = [];
  return {
    batches,
    repo: {
      ...repo,
      async deleteFinishedBefore(before, limit) {
        const deleted = await repo.deleteFinishedBefore(before, limit);
        batches.push(deleted);
        return deleted;
      },
    },
  };
}

describe('webhook delivery retention', () => {
  it('deletes finished deliveries past the retention with their attempts, and keeps recent and pending ones', async () => {
    const { t, repo } = await setUp();
    const owner = await t.createOwner();
    const other = await t.createOwner();
    const hook = await endpoint(t, owner);
    const otherHook = await endpoint(t, other);

    const old = await store(t, owner, hook, [
      { state: 'delivered', createdDaysAgo: 45, updatedDaysAgo: 45, attempts: 1 },
      // Retried for a day, then given up: its three attempts go with it.
      { state: 'failed', createdDaysAgo: 41, updatedDaysAgo: 40, attempts: 3 },
      // Past the pending caps: failed at once, never sent, no attempt.
      { state: 'failed', createdDaysAgo: 31, updatedDaysAgo: 31, attempts: 0 },
    ]);
    const kept = await store(t, owner, hook, [
      { state: 'delivered', createdDaysAgo: 2, updatedDaysAgo: 2, attempts: 2 },
      { state: 'failed', createdDaysAgo: 29, updatedDaysAgo: 29, attempts: 0 },
      // Stored long ago but finished recently: kept for the retention after it finished.
      { state: 'failed', createdDaysAgo: 36, updatedDaysAgo: 29, attempts: 4 },
      // Pending, however old (a webhook paused for months, or a lease that never ran out): never deleted.
      { state: 'pending', createdDaysAgo: 90, updatedDaysAgo: 90, attempts: 5 },
      { state: 'pending', createdDaysAgo: 400, updatedDaysAgo: 400, attempts: 0 },
    ]);
    const othersKept = await store(t, other, otherHook, [
      { state: 'delivered', createdDaysAgo: 1, updatedDaysAgo: 1, attempts: 1 },
      { state: 'failed', createdDaysAgo: 20, updatedDaysAgo: 19, attempts: 2 },
      { state: 'pending', createdDaysAgo: 60, updatedDaysAgo: 60, attempts: 3 },
    ]);

    expect(await pruneDeliveries(repo, daysAgo(30))).toBe(old.length);

    expect(await remaining(t, old)).toEqual({ deliveries: [], attempts: 0 });
    expect(await remaining(t, kept)).toEqual({ deliveries: [...kept].sort(), attempts: 2 + 4 + 5 });
    expect(await remaining(t, othersKept)).toEqual({ deliveries: [...othersKept].sort(), attempts: 1 + 2 + 3 });
    // The webhooks themselves stay, and the owner still lists what is kept.
    expect(await repo.getEndpoint(owner.id, hook)).toBeDefined();
    expect((await repo.listDeliveries(owner.id, hook, { limit: 50 })).map((row) => row.id).sort()).toEqual([...kept].sort());
    // A second run finds nothing more.
    expect(await pruneDeliveries(repo, daysAgo(30))).toBe(0);
  });

  it('deletes in batches, looping until a batch deletes fewer', async () => {
    const { t, repo } = await setUp();
    const owner = await t.createOwner();
    const hook = await endpoint(t, owner);
    const old = await store(
      t,
      owner,
      hook,
      Array.from({ length: 7 }, (_, i) => ({ state: i % 2 === 0 ? ('delivered' as const) : ('failed' as const), createdDaysAgo: 50, updatedDaysAgo: 40 + i, attempts: 2 })),
    );
    const recent = await store(t, owner, hook, [{ state: 'delivered', createdDaysAgo: 3, updatedDaysAgo: 3, attempts: 1 }]);

    const { repo: noted, batches } = counting(repo);
    expect(await pruneDeliveries(noted, daysAgo(30), { batchSize: 3 })).toBe(7);
    expect(batches).toEqual([3, 3, 1]);
    expect(await remaining(t, old)).toEqual({ deliveries: [], attempts: 0 });
    expect(await remaining(t, recent)).toEqual({ deliveries: recent, attempts: 1 });
  });

  it(`deletes a backlog larger than one batch ${PRUNE_BATCH} rows at a time`, async () => {
    const { t, repo } = await setUp();
    const owner = await t.createOwner();
    const hook = await endpoint(t, owner);
    const count = 2 * PRUNE_BATCH + 150;
    const old = await store(
      t,
      owner,
      hook,
      Array.from({ length: count }, () => ({ state: 'failed' as const, createdDaysAgo: 60, updatedDaysAgo: 60, attempts: 1 })),
    );
    const pending = await store(t, owner, hook, [{ state: 'pending', createdDaysAgo: 60, updatedDaysAgo: 60, attempts: 1 }]);

    const { repo: noted, batches } = counting(repo);
    expect(await pruneDeliveries(noted, daysAgo(30))).toBe(count);
    expect(batches).toEqual([PRUNE_BATCH, PRUNE_BATCH, 150]);
    expect(await remaining(t, old)).toEqual({ deliveries: [], attempts: 0 });
    expect(await remaining(t, pending)).toEqual({ deliveries: pending, attempts: 1 });
  }, 60_000);

  it.skipIf(ENGINE !== 'postgres')('never waits on rows another node holds: a webhook being deleted, or another node pruning', async () => {
    const { t, repo } = await setUp();
    const second = await t.openStorage();
    try {
      const otherNode = createWebhooksRepo(second.db, second.dialect);
      const owner = await t.createOwner();
      const hook = await endpoint(t, owner);
      const doomed = await endpoint(t, owner);
      const old = await store(t, owner, hook, Array.from({ length: 300 }, () => ({ state: 'delivered' as const, createdDaysAgo: 40, updatedDaysAgo: 40, attempts: 2 })));
      const held = await store(t, owner, doomed, [{ state: 'failed', createdDaysAgo: 40, updatedDaysAgo: 40, attempts: 3 }]);

      // Another node is deleting a webhook: it has deleted its deliveries' attempts and not yet
      // committed. The sweep passes that delivery over instead of waiting (and deadlocking).
      await second.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', held).execute();
        expect(await pruneDeliveries(repo, daysAgo(30), { batchSize: 500 })).toBe(old.length);
      });
      expect(await remaining(t, old)).toEqual({ deliveries: [], attempts: 0 });
      // What was passed over goes in the next run.
      expect(await pruneDeliveries(repo, daysAgo(30))).toBe(1);

      // Two nodes pruning at once, while a webhook is deleted: no error, and what one passes
      // over the other (or the next run) deletes.
      const more = await store(t, owner, hook, Array.from({ length: 400 }, () => ({ state: 'failed' as const, createdDaysAgo: 40, updatedDaysAgo: 40, attempts: 2 })));
      const gone = await store(t, owner, doomed, Array.from({ length: 100 }, () => ({ state: 'delivered' as const, createdDaysAgo: 40, updatedDaysAgo: 40, attempts: 1 })));
      const results = await Promise.all([
        pruneDeliveries(repo, daysAgo(30), { batchSize: 50 }),
        pruneDeliveries(otherNode, daysAgo(30), { batchSize: 50 }),
        otherNode.deleteEndpoint(owner.id, doomed),
      ]);
      expect(results[2]).toBe(true);
      await pruneDeliveries(repo, daysAgo(30));
      expect(await remaining(t, [...more, ...gone])).toEqual({ deliveries: [], attempts: 0 });
    } finally {
      await second.close();
    }
  });

  it('is run by the worker when it starts looking, then not again within the hour', async () => {
    const { t, repo } = await setUp();
    const owner = await t.createOwner();
    const hook = await endpoint(t, owner);
    const first = await store(t, owner, hook, [{ state: 'delivered', createdDaysAgo: 12, updatedDaysAgo: 12, attempts: 1 }]);
    const recent = await store(t, owner, hook, [{ state: 'delivered', createdDaysAgo: 8, updatedDaysAgo: 8, attempts: 1 }]);

    const { repo: noted, batches } = counting(repo);
    let looks = 0;
    const errors: string[] = [];
    const deliverer = createWebhookDeliverer({
      repo: {
        ...noted,
        async nextDue(lookedAt) {
          looks++;
          return noted.nextDue(lookedAt);
        },
      },
      outbound: {
        open: () => {
          throw new Error('nothing is due, so nothing is sent');
        },
      },
      events: t.container.events,
      openSecret: () => Promise.reject(new Error('nothing is due, so no secret is opened')),
      settings: { ...t.config.webhooks, deliveryRetentionDays: 10 },
    });
    try {
      deliverer.start({ warn: () => undefined, error: (_object, message) => errors.push(message) });
      await vi.waitFor(async () => expect((await remaining(t, first)).deliveries).toEqual([]), { timeout: 10_000, interval: 20 });
      expect(await remaining(t, recent)).toEqual({ deliveries: recent, attempts: 1 });
      expect(batches).toEqual([1]);

      // Another delivery falls past the retention; the worker looks again and again, but the
      // rule waits for its hour.
      const second = await store(t, owner, hook, [{ state: 'failed', createdDaysAgo: 20, updatedDaysAgo: 20, attempts: 0 }]);
      const seen = looks;
      for (let i = 0; i < 3; i++) {
        deliverer.wake();
        await vi.waitFor(() => expect(looks).toBeGreaterThan(seen + i), { timeout: 10_000, interval: 5 });
      }
      expect(batches).toEqual([1]);
      expect((await remaining(t, second)).deliveries).toEqual(second);
      expect(errors).toEqual([]);
    } finally {
      await deliverer.close();
    }
  });

  it('reports a failure the way the worker reports its others, and the worker keeps looking', async () => {
    const { t, repo } = await setUp();
    let looks = 0;
    const errors: Array<{ message: string; err: unknown }> = [];
    const deliverer = createWebhookDeliverer({
      repo: {
        ...repo,
        deleteFinishedBefore: () => Promise.reject(new Error('the database is unavailable')),
        async nextDue(lookedAt) {
          looks++;
          return repo.nextDue(lookedAt);
        },
      },
      outbound: {
        open: () => {
          throw new Error('nothing is due, so nothing is sent');
        },
      },
      events: t.container.events,
      openSecret: () => Promise.reject(new Error('nothing is due, so no secret is opened')),
      settings: t.config.webhooks,
    });
    try {
      deliverer.start({ warn: () => undefined, error: (object, message) => errors.push({ message, err: object.err }) });
      await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 10_000, interval: 20 });
      expect(errors[0]!.message).toBe('webhooks: deliveries past their retention could not be deleted; trying again in an hour');
      expect((errors[0]!.err as Error).message).toBe('the database is unavailable');
      const seen = looks;
      deliverer.wake();
      await vi.waitFor(() => expect(looks).toBeGreaterThan(seen), { timeout: 10_000, interval: 5 });
      expect(errors).toHaveLength(1);
    } finally {
      await deliverer.close();
    }
  });
});
