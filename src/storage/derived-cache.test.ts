import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, ENGINE, type TestApp } from '../../test/harness.js';
import { newId } from '../lib/ids.js';
import { isoNow } from '../lib/time.js';
import { createDerivedCache } from './derived-cache.js';
import { createWriteTracker, type WriteTracker } from './write-tracker.js';

describe(`write tracker and derived cache (${ENGINE})`, () => {
  let t: TestApp;
  let writes: WriteTracker;
  let ownerId: string;

  beforeAll(async () => {
    t = await createTestApp();
    writes = t.storage.writes!;
    ownerId = (await t.createOwner()).id;
  });
  afterAll(async () => t.close());

  const addMemory = (content: string) => {
    const now = isoNow();
    return t.storage.db.insertInto('memory_entries').values({ id: newId('mem'), owner_id: ownerId, content, created_at: now, updated_at: now }).execute();
  };

  it('with admission, keeps an answer only from the second request of its key on', async () => {
    const cache = createDerivedCache<number>({ tracker: writes, tables: ['memory_entries'], maxEntries: 10, maxWeight: 100, weigh: () => 1, admitAfter: 2 });
    let computed = 0;
    const compute = async () => ++computed;
    await cache.get('a', compute);
    await cache.get('a', compute);
    expect(computed).toBe(2);
    expect(await cache.get('a', compute)).toBe(2);
    expect(computed).toBe(2);
    // Only the last keys seen once are remembered: 'b' is forgotten after 'c' and 'd'.
    await cache.get('b', compute);
    await cache.get('c', compute);
    await cache.get('d', compute);
    await cache.get('b', compute);
    await cache.get('b', compute);
    expect(computed).toBe(7);
  });

  it('counts inserts, updates and deletes per table, and nothing for reads', async () => {
    const memory = writes.stamp(['memory_entries'])!;
    const personas = writes.stamp(['personas']);
    await addMemory('one');
    expect(writes.stamp(['memory_entries'])).toBe(memory + 1);
    await t.storage.db.updateTable('memory_entries').set({ content: 'two' }).where('owner_id', '=', ownerId).execute();
    await t.storage.db.deleteFrom('memory_entries').where('content', '=', 'nothing matches').execute();
    expect(writes.stamp(['memory_entries'])).toBe(memory + 3);
    await t.storage.db.selectFrom('memory_entries').select('id').execute();
    expect(writes.stamp(['memory_entries'])).toBe(memory + 3);
    expect(writes.stamp(['personas'])).toBe(personas);
  });

  it("does not count an update that sets only a token's last use (no cache reads it), and counts one that sets more", async () => {
    const token = await t.storage.db.selectFrom('tokens').select(['id', 'name']).where('owner_id', '=', ownerId).executeTakeFirstOrThrow();
    const before = writes.stamp(['tokens'])!;
    await t.storage.db.updateTable('tokens').set({ last_used_at: isoNow() }).where('id', '=', token.id).execute();
    expect(writes.stamp(['tokens'])).toBe(before);
    await t.storage.db.updateTable('tokens').set({ last_used_at: isoNow(), name: token.name }).where('id', '=', token.id).execute();
    expect(writes.stamp(['tokens'])).toBe(before + 1);
  });

  it('treats a raw write statement as a write to every table', async () => {
    const before = writes.stamp(['personas'])!;
    await sql`UPDATE personas SET name = name WHERE owner_id = ${ownerId}`.execute(t.storage.db);
    expect(writes.stamp(['personas'])).toBeGreaterThan(before);
    const afterRead = writes.stamp(['personas']);
    await sql`SELECT 1`.execute(t.storage.db);
    expect(writes.stamp(['personas'])).toBe(afterRead);
  });

  it('serves an answer until one of its tables is written', async () => {
    const cache = createDerivedCache<number>({ tracker: writes, tables: ['memory_entries'], maxEntries: 10, maxWeight: 100, weigh: () => 1 });
    let computed = 0;
    const compute = async () => ++computed;
    expect(await cache.get('k', compute)).toBe(1);
    expect(await cache.get('k', compute)).toBe(1);
    await t.storage.db.insertInto('personas').values({
      id: newId('per'), owner_id: ownerId, name: 'p', description: '', soul_content: 's', active: 0, created_at: isoNow(), updated_at: isoNow(),
    }).execute();
    expect(await cache.get('k', compute)).toBe(1); // another table: still valid
    await addMemory('three');
    expect(await cache.get('k', compute)).toBe(2);
  });

  it('peeks at what it would serve, without computing: nothing before, after a write, or while suspended', async () => {
    const tracker = createWriteTracker({ maxAgeMs: 60_000 });
    const cache = createDerivedCache<string>({ tracker, tables: ['skills'], maxEntries: 10, maxWeight: 10, weigh: () => 1 });
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k', async () => 'first')).toBe('first');
    expect(cache.peek('k')).toBe('first');
    expect(cache.peek('other')).toBeUndefined();
    tracker.noteWrites(['users']);
    expect(cache.peek('k')).toBe('first');
    tracker.noteWrites(['skills']);
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k', async () => 'second')).toBe('second');
    tracker.suspend();
    expect(cache.peek('k')).toBeUndefined();
    tracker.resume();
    expect(cache.peek('k')).toBeUndefined();
  });

  it('drops a kept answer that no longer holds by its own test (isCurrent), and computes it again', async () => {
    const cache = createDerivedCache<{ n: number; until: number }>({ tracker: writes, tables: ['memory_entries'], maxEntries: 10, maxWeight: 100, weigh: () => 1 });
    let computed = 0;
    let clock = 0;
    const compute = async () => ({ n: ++computed, until: clock + 10 });
    const holds = (value: { until: number }) => value.until > clock;
    expect((await cache.get('a', compute, holds)).n).toBe(1);
    expect((await cache.get('a', compute, holds)).n).toBe(1);
    expect(cache.peek('a', holds)?.n).toBe(1);
    clock = 10;
    expect(cache.peek('a', holds)).toBeUndefined();
    // Dropped by the peek: even a caller that does not ask whether it holds computes it again.
    expect((await cache.get('a', compute)).n).toBe(2);
    expect((await cache.get('a', compute, holds)).n).toBe(2);
    expect(computed).toBe(2);
  });

  it('counts a peek as a use: the least recently used entry is dropped first', async () => {
    const tracker = createWriteTracker();
    const cache = createDerivedCache<string>({ tracker, tables: ['skills'], maxEntries: 2, maxWeight: 10, weigh: () => 1 });
    await cache.get('a', async () => 'A');
    await cache.get('b', async () => 'B');
    expect(cache.peek('a')).toBe('A');
    await cache.get('c', async () => 'C');
    expect(cache.peek('a')).toBe('A');
    expect(cache.peek('b')).toBeUndefined();
  });

  it('never keeps an answer during whose computation a write finished', async () => {
    const cache = createDerivedCache<string>({ tracker: writes, tables: ['memory_entries'], maxEntries: 10, maxWeight: 100, weigh: () => 1 });
    let calls = 0;
    const racing = async () => {
      calls += 1;
      const answer = `read before the write (${calls})`;
      await addMemory('written while computing');
      return answer;
    };
    expect(await cache.get('k', racing)).toBe('read before the write (1)');
    expect(await cache.get('k', async () => 'fresh')).toBe('fresh');
    expect(await cache.get('k', async () => 'not used')).toBe('fresh');
  });

  it('stays within its entry and weight budgets, dropping the least recently used', async () => {
    const cache = createDerivedCache<string>({ tracker: writes, tables: ['memory_entries'], maxEntries: 2, maxWeight: 10, weigh: (v) => v.length });
    await cache.get('a', async () => 'aaaa');
    await cache.get('b', async () => 'bbbb');
    await cache.get('a', async () => 'recomputed');
    await cache.get('c', async () => 'cccc'); // evicts b, the least recently used
    expect(await cache.get('a', async () => 'recomputed')).toBe('aaaa');
    expect(await cache.get('b', async () => 'b2')).toBe('b2');
    expect(await cache.get('big', async () => 'x'.repeat(11))).toBe('x'.repeat(11)); // over budget: served, not kept
    expect(await cache.get('big', async () => 'again')).toBe('again');
  });

  it('counts a write in a transaction only once it has committed, and none that rolled back', async () => {
    const before = writes.stamp(['memory_entries'])!;
    let inside: number | undefined;
    await t.storage.db.transaction().execute(async (trx) => {
      const now = isoNow();
      await trx.insertInto('memory_entries').values({ id: newId('mem'), owner_id: ownerId, content: 'in a transaction', created_at: now, updated_at: now }).execute();
      inside = writes.stamp(['memory_entries']);
    });
    if (ENGINE === 'postgres') {
      // Other connections cannot see the row before COMMIT: a reader then must not take it as written.
      expect(inside).toBe(before);
    }
    expect(writes.stamp(['memory_entries'])!).toBeGreaterThan(before);
    const committed = writes.stamp(['memory_entries'])!;
    await expect(
      t.storage.db.transaction().execute(async (trx) => {
        await trx.updateTable('memory_entries').set({ content: 'rolled back' }).where('owner_id', '=', ownerId).execute();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    if (ENGINE === 'postgres') expect(writes.stamp(['memory_entries'])).toBe(committed);
  });
});

describe('derived cache where other processes write (the PostgreSQL rules)', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps no answer longer than the tracker allows, counted from before it was computed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const tracker = createWriteTracker({ maxAgeMs: 5_000 });
    const cache = createDerivedCache<number>({ tracker, tables: ['skills'], maxEntries: 10, maxWeight: 10, weigh: () => 1 });
    let computed = 0;
    const compute = async () => {
      computed += 1;
      vi.advanceTimersByTime(1_000); // a slow computation: its age starts before it
      return computed;
    };
    expect(await cache.get('k', compute)).toBe(1);
    vi.advanceTimersByTime(3_999);
    expect(await cache.get('k', compute)).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await cache.get('k', compute)).toBe(2);
  });

  it('serves and keeps nothing while the tracker is suspended, and nothing from before once it resumes', async () => {
    const tracker = createWriteTracker({ maxAgeMs: 60_000 });
    const cache = createDerivedCache<string>({ tracker, tables: ['skills'], maxEntries: 10, maxWeight: 10, weigh: () => 1 });
    expect(await cache.get('k', async () => 'first')).toBe('first');
    expect(await cache.get('k', async () => 'unused')).toBe('first');
    tracker.suspend();
    expect(tracker.stamp(['skills'])).toBeUndefined();
    expect(await cache.get('k', async () => 'while suspended')).toBe('while suspended');
    expect(await cache.get('k', async () => 'again')).toBe('again');
    tracker.resume();
    expect(await cache.get('k', async () => 'after resume')).toBe('after resume');
    expect(await cache.get('k', async () => 'unused')).toBe('after resume');
    // Suspended and resumed while an answer was being computed: it is not kept.
    tracker.noteWrites(['skills']);
    expect(
      await cache.get('k', async () => {
        tracker.suspend();
        tracker.resume();
        return 'computed across a loss';
      }),
    ).toBe('computed across a loss');
    expect(await cache.get('k', async () => 'fresh')).toBe('fresh');
  });

  it('runs one computation for requests that miss together, and a new one once a write was counted', async () => {
    const tracker = createWriteTracker({ maxAgeMs: 60_000 });
    const cache = createDerivedCache<number>({ tracker, tables: ['skills'], maxEntries: 10, maxWeight: 10, weigh: () => 1 });
    let computed = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = async () => {
      const n = ++computed;
      await gate;
      return n;
    };
    const together = [cache.get('k', slow), cache.get('k', slow), cache.get('k', slow)];
    // A write counted meanwhile: a request after it must not join the computation begun before it.
    tracker.noteWrites(['skills']);
    const after = cache.get('k', slow);
    release();
    expect(await Promise.all(together)).toEqual([1, 1, 1]);
    expect(await after).toBe(2);
    expect(computed).toBe(2);
  });

  it('names its tables by the table types: a misspelt table does not type-check (tsc --noEmit)', () => {
    const options = { tracker: createWriteTracker(), maxEntries: 1, maxWeight: 1, weigh: () => 1 };
    // @ts-expect-error 'skils' is not a table of the database
    const misspelt = createDerivedCache<number>({ ...options, tables: ['skils'] });
    expect(misspelt.peek('k')).toBeUndefined();
  });
});
