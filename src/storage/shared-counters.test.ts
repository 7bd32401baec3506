import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type TestApp } from '../../test/harness.js';
import { createApproximateRateLimiter, createRateLimiter } from '../http/rate-limit.js';
import { createLocalCounters, createPgCounters, type SharedCounters } from './shared-counters.js';
import type { Storage } from './storage.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('in-process counters (SQLite: one process per data directory)', () => {
  it('adds within a window, starts a new one when it ends; a sliding add moves the end', async () => {
    const c = clock();
    const counters = createLocalCounters({ now: c.now });
    expect(await counters.add('k', 1, 1_000)).toEqual({ count: 1, resetAt: 1_001_000 });
    c.advance(500);
    expect(await counters.add('k', 2, 1_000)).toEqual({ count: 3, resetAt: 1_001_000 });
    c.advance(500);
    expect(await counters.add('k', 1, 1_000)).toEqual({ count: 1, resetAt: 1_002_000 });
    expect(await counters.add('s', 1, 1_000, { sliding: true })).toEqual({ count: 1, resetAt: 1_002_000 });
    c.advance(900);
    expect(await counters.add('s', 1, 1_000, { sliding: true })).toEqual({ count: 2, resetAt: 1_002_900 });
    expect([...(await counters.read(['k', 's', 'none'])).keys()].sort()).toEqual(['k', 's']);
    await counters.delete('s');
    expect((await counters.read(['s'])).size).toBe(0);
  });

  it('hit and add count the same counter; a negative amount takes hits back', async () => {
    const counters = createLocalCounters();
    counters.hit('k', 1, 60_000);
    expect((await counters.add('k', 1, 60_000)).count).toBe(2);
    expect(counters.hit('k', -1, 60_000).count).toBe(1);
  });

  it('security: keeps at most maxKeys counters, dropping the least recently written', async () => {
    const counters = createLocalCounters({ maxKeys: 100 });
    for (let i = 0; i < 1_000; i++) counters.hit(`k${i}`, 1, 60_000);
    expect(counters.size).toBe(100);
    expect((await counters.read(['k999'])).get('k999')?.count).toBe(1);
    expect((await counters.read(['k0'])).size).toBe(0);
  });
});

/** Two nodes on one PostgreSQL schema, each with its own counters (as each node's container has). */
describe.skipIf(ENGINE !== 'postgres')('PostgreSQL counters shared by two nodes', () => {
  let t: TestApp;
  let bStorage: Storage;
  const opened: SharedCounters[] = [];
  // Flushed by the tests only, so that each step is seen as it happens.
  const counters = (storage: Storage, now?: () => number) => {
    const made = createPgCounters(storage.db, { flushMs: 3_600_000, ...(now ? { now } : {}) });
    opened.push(made);
    return made;
  };
  let key = 0;
  const fresh = () => `test:${++key}`;

  beforeAll(async () => {
    t = await createTestApp();
    bStorage = await t.openStorage();
  });
  afterAll(async () => {
    for (const c of opened) await c.close();
    await bStorage?.close();
    await t?.close();
  });

  it('exact: both nodes count one key; hits sent at once each get their own total', async () => {
    const a = counters(t.storage);
    const b = counters(bStorage);
    const k = fresh();
    const totals = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).add(k, 1, 60_000)));
    expect(totals.map((w) => w.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await b.read([k])).get(k)?.count).toBe(20);
  });

  it('exact: a limiter refuses the (max+1)th hit whichever node it reaches', async () => {
    const onA = createRateLimiter({ max: 5, windowMs: 60_000, what: 'tries', name: 'unit', counters: counters(t.storage) });
    const onB = createRateLimiter({ max: 5, windowMs: 60_000, what: 'tries', name: 'unit', counters: counters(bStorage) });
    const outcomes = await Promise.allSettled(Array.from({ length: 9 }, (_, i) => (i % 2 ? onA : onB).hit('203.0.113.9')));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    await expect(onA.hit('203.0.113.9')).rejects.toThrow(/Too many tries; try again in \d+ s/);
    await expect(onB.hit('203.0.113.9')).rejects.toThrow(/Too many tries/);
    // Another key is counted apart.
    await expect(onB.hit('198.51.100.1')).resolves.toBeUndefined();
  });

  it('exact: a window that ended starts again at the amount added, on either node', async () => {
    const c = clock(Date.now());
    const a = counters(t.storage, c.now);
    const b = counters(bStorage, c.now);
    const k = fresh();
    await a.add(k, 3, 1_000);
    c.advance(1_000);
    expect((await b.add(k, 1, 1_000)).count).toBe(1);
    expect((await a.add(k, 1, 1_000, { sliding: true })).resetAt).toBe(c.now() + 1_000);
    await b.delete(k);
    expect((await a.read([k])).size).toBe(0);
  });

  it('approximate: each node counts on its own view, and after one flush each sees every node\'s hits', async () => {
    const a = counters(t.storage);
    const b = counters(bStorage);
    const k = fresh();
    for (let i = 0; i < 3; i++) a.hit(k, 1, 60_000);
    for (let i = 0; i < 4; i++) b.hit(k, 1, 60_000);
    // Nothing sent yet: each node knows its own hits only.
    expect(a.hit(k, 0, 60_000).count).toBe(3);
    await a.flush();
    await b.flush();
    expect(b.hit(k, 0, 60_000).count).toBe(7);
    expect((await a.read([k])).get(k)?.count).toBe(7);
    // A's view is refreshed by its next flush carrying a hit.
    a.hit(k, 1, 60_000);
    await a.flush();
    expect(a.hit(k, 0, 60_000).count).toBe(8);
  });

  it('approximate: a limiter refuses once the flushed total passes the limit, overshooting by what the other node accepted between two of its flushes', async () => {
    const ca = counters(t.storage);
    const cb = counters(bStorage);
    const onA = createApproximateRateLimiter({ max: 10, windowMs: 60_000, what: 'requests', name: 'unit-approx', counters: ca });
    const onB = createApproximateRateLimiter({ max: 10, windowMs: 60_000, what: 'requests', name: 'unit-approx', counters: cb });
    const accepted = (limiter: typeof onA, n: number) => {
      let ok = 0;
      for (let i = 0; i < n; i++) {
        try {
          limiter.hit('tok_1');
          ok += 1;
        } catch {
          // refused
        }
      }
      return ok;
    };
    // Between two flushes each node accepts up to the limit on its own view.
    expect(accepted(onA, 6)).toBe(6);
    expect(accepted(onB, 6)).toBe(6);
    await ca.flush();
    await cb.flush();
    // B flushed last and knows all 12; A's view (6) is refreshed by its next flush only.
    expect(accepted(onB, 3)).toBe(0);
    expect(accepted(onA, 10)).toBe(4);
    await ca.flush();
    expect(accepted(onA, 3)).toBe(0);
    // 16 accepted for a limit of 10: the overshoot is B's 6 hits, sent between A's two flushes.
  });

  it('ended windows are swept from the table a batch at a time', async () => {
    const c = clock(Date.now());
    const a = counters(t.storage, c.now);
    const k = fresh();
    await a.add(k, 1, 1_000);
    c.advance(60_000);
    a.hit(fresh(), 1, 60_000);
    await a.flush();
    const left = await sql<{ n: string }>`select count(*) as n from shared_counters where key = ${k}`.execute(t.storage.db);
    expect(Number(left.rows[0]!.n)).toBe(0);
  });
});
