import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type Owner, type TestApp } from '../../test/harness.js';
import { toAppError } from '../http/errors.js';
import { DATABASE_FILE } from './data-dir.js';
import { createGroupCommit, WritesOverloadedError, type BatchedWork } from './group-commit.js';
import { isUniqueViolation, type Storage } from './storage.js';
import type { Executor } from './columns.js';

let t: TestApp;
let owner: Owner;
let n = 0;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner();
});

afterAll(async () => {
  await t.close();
});

function entry(content = `entry ${++n}`) {
  const now = new Date().toISOString();
  return { id: `mem_gc_${++n}_${Math.random().toString(36).slice(2)}`, owner_id: owner.id, content, created_at: now, updated_at: now };
}

async function stored(storage: Storage, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await storage.db.selectFrom('memory_entries').select('id').where('owner_id', '=', owner.id).where('id', 'in', ids).execute();
  return rows.map((r) => r.id).sort();
}

describe(`group commit (${ENGINE})`, () => {
  it('runs the units queued together in one transaction, in the order they were queued, and commits all of them', async () => {
    const groupCommit = createGroupCommit(t.storage.db, t.storage.dialect);
    const transactions = new Set<Executor>();
    const order: number[] = [];
    const rows = Array.from({ length: 40 }, () => entry());
    const results = await Promise.all(
      rows.map((row, i) =>
        groupCommit.run(async (trx) => {
          transactions.add(trx);
          order.push(i);
          await trx.insertInto('memory_entries').values(row).execute();
          return i * 2;
        }),
      ),
    );
    expect(results).toEqual(rows.map((_, i) => i * 2));
    expect(order).toEqual(rows.map((_, i) => i));
    // Forty requests, one commit.
    expect(transactions.size).toBe(1);
    expect(await stored(t.storage, rows.map((r) => r.id))).toEqual(rows.map((r) => r.id).sort());
    await groupCommit.close();
  });

  it('splits a long queue into batches of at most maxBatch units', async () => {
    const groupCommit = createGroupCommit(t.storage.db, t.storage.dialect, { maxBatch: 8 });
    const batchSizes = new Map<Executor, number>();
    const rows = Array.from({ length: 30 }, () => entry());
    await Promise.all(
      rows.map((row) =>
        groupCommit.run(async (trx) => {
          batchSizes.set(trx, (batchSizes.get(trx) ?? 0) + 1);
          await trx.insertInto('memory_entries').values(row).execute();
        }),
      ),
    );
    // On PostgreSQL several batches commit at once, so their units interleave.
    expect([...batchSizes.values()].sort((a, b) => b - a)).toEqual([8, 8, 8, 6]);
    expect(await stored(t.storage, rows.map((r) => r.id))).toHaveLength(30);
    await groupCommit.close();
  });

  it('fails a failing unit alone: its writes are rolled back, its error goes to its caller, the others commit', async () => {
    const groupCommit = createGroupCommit(t.storage.db, t.storage.dialect);
    const rows = Array.from({ length: 10 }, () => entry());
    const failing = new Error('this unit fails after its insert');
    const duplicate = rows[2]!;
    const settled = await Promise.allSettled([
      ...rows.map((row, i) =>
        groupCommit.run(async (trx) => {
          await trx.insertInto('memory_entries').values(row).execute();
          if (i === 5) throw failing;
          return row.id;
        }),
      ),
      // A statement that fails in the database: on PostgreSQL it aborts the transaction it is in.
      groupCommit.run(async (trx) => {
        await trx.insertInto('memory_entries').values({ ...duplicate, content: 'the same id again' }).execute();
      }),
    ]);
    expect(settled.slice(0, 10).map((s) => s.status)).toEqual(rows.map((_, i) => (i === 5 ? 'rejected' : 'fulfilled')));
    expect((settled[5] as PromiseRejectedResult).reason).toBe(failing);
    expect(settled[10]!.status).toBe('rejected');
    expect(isUniqueViolation((settled[10] as PromiseRejectedResult).reason)).toBe(true);
    const expected = rows.filter((_, i) => i !== 5).map((r) => r.id).sort();
    expect(await stored(t.storage, rows.map((r) => r.id))).toEqual(expected);
    const kept = await t.storage.db.selectFrom('memory_entries').select('content').where('id', '=', duplicate.id).executeTakeFirstOrThrow();
    expect(kept.content).toBe(duplicate.content);
    await groupCommit.close();
  });

  it('runs the items of one batched work queued together in one call; with one statement for them all, a duplicate fails alone', async () => {
    for (const oneStatement of [false, true]) {
      const groupCommit = createGroupCommit(t.storage.db, t.storage.dialect);
      const calls: number[] = [];
      type Row = ReturnType<typeof entry>;
      const work: BatchedWork<Row, string> = {
        async run(db, items) {
          calls.push(items.length);
          // One statement for all the rows: all of them or none.
          await db.insertInto('memory_entries').values([...items]).execute();
          return items.map((item) => item.id);
        },
        oneStatement: () => oneStatement,
      };
      const rows = Array.from({ length: 12 }, () => entry());
      const duplicate = { ...rows[3]!, content: 'the same id again' };
      const settled = await Promise.allSettled([...rows, duplicate].map((row) => groupCommit.runBatched(work, row)));
      expect(settled.slice(0, 12).map((s) => (s.status === 'fulfilled' ? s.value : undefined))).toEqual(rows.map((r) => r.id));
      expect(settled[12]!.status).toBe('rejected');
      expect(isUniqueViolation((settled[12] as PromiseRejectedResult).reason)).toBe(true);
      // The whole batch in one call, then each item alone in its savepoint.
      expect(calls).toEqual([13, ...Array<number>(13).fill(1)]);
      expect(await stored(t.storage, rows.map((r) => r.id))).toEqual(rows.map((r) => r.id).sort());
      await groupCommit.close();
    }
  });

  it('a lone failing unit is rolled back and its error answered', async () => {
    const groupCommit = createGroupCommit(t.storage.db, t.storage.dialect);
    const row = entry();
    await expect(
      groupCommit.run(async (trx) => {
        await trx.insertInto('memory_entries').values(row).execute();
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(await stored(t.storage, [row.id])).toEqual([]);
    await groupCommit.close();
  });

  it('answers a caller only once its batch has committed: another connection already sees the write', async () => {
    const other = await t.openStorage();
    try {
      const rows = Array.from({ length: 20 }, () => entry());
      const seen = await Promise.all(
        rows.map((row) =>
          t.storage.groupCommit
            .run(async (trx) => {
              await trx.insertInto('memory_entries').values(row).execute();
            })
            .then(() => stored(other, [row.id])),
        ),
      );
      expect(seen).toEqual(rows.map((r) => [r.id]));
    } finally {
      await other.close();
    }
  });

  it('close() waits for the queued and the running batches, then refuses new units', async () => {
    const groupCommit = createGroupCommit(t.storage.db, t.storage.dialect, { maxBatch: 4 });
    const rows = Array.from({ length: 18 }, () => entry());
    const done: string[] = [];
    const runs = rows.map((row) =>
      groupCommit
        .run(async (trx) => {
          await trx.insertInto('memory_entries').values(row).execute();
        })
        .then(() => done.push(row.id)),
    );
    await groupCommit.close();
    expect(done).toHaveLength(rows.length);
    await Promise.all(runs);
    expect(await stored(t.storage, rows.map((r) => r.id))).toHaveLength(rows.length);
    await expect(groupCommit.run(async () => 1)).rejects.toThrow(/closing/);
  });

  it('refuses with 503 when more units wait than it holds, and commits the ones it took', async () => {
    const groupCommit = createGroupCommit(t.storage.db, t.storage.dialect, { maxQueued: 5 });
    const rows = Array.from({ length: 7 }, () => entry());
    const settled = await Promise.allSettled(
      rows.map((row) =>
        groupCommit.run(async (trx) => {
          await trx.insertInto('memory_entries').values(row).execute();
        }),
      ),
    );
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    const refusal = (settled[5] as PromiseRejectedResult).reason;
    expect(refusal).toBeInstanceOf(WritesOverloadedError);
    // What a client is answered (the route's error handler maps it so).
    const answer = toAppError(refusal);
    expect([answer.status, answer.code, answer.headers['Retry-After']]).toEqual([503, 'RATE_LIMITED', '1']);
    expect(await stored(t.storage, rows.map((r) => r.id))).toHaveLength(5);
    await groupCommit.close();
  });

  it.runIf(ENGINE === 'postgres')('a unit that loses a deadlock against another batch is run again after it, not failed', async () => {
    const a = entry();
    const b = entry();
    await t.storage.db.insertInto('memory_entries').values([a, b]).execute();
    // One unit per batch, two batches at once: each locks one row, waits until the other has
    // locked its own, then wants the other's. PostgreSQL aborts one of them.
    const groupCommit = createGroupCommit(t.storage.db, 'postgres', { maxBatch: 1, maxInFlight: 2 });
    let locked = 0;
    let bothLocked!: () => void;
    const barrier = new Promise<void>((resolve) => (bothLocked = resolve));
    const crosswise = (first: typeof a, second: typeof a, content: string) =>
      groupCommit.run(async (trx) => {
        await trx.updateTable('memory_entries').set({ content }).where('id', '=', first.id).execute();
        if (++locked === 2) bothLocked();
        await barrier;
        await trx.updateTable('memory_entries').set({ content }).where('id', '=', second.id).execute();
        return content;
      });
    const settled = await Promise.allSettled([crosswise(a, b, 'one'), crosswise(b, a, 'two')]);
    expect(settled).toEqual([
      { status: 'fulfilled', value: 'one' },
      { status: 'fulfilled', value: 'two' },
    ]);
    // Whichever committed last wrote both rows.
    const contents = await t.storage.db.selectFrom('memory_entries').select('content').where('id', 'in', [a.id, b.id]).execute();
    expect(new Set(contents.map((row) => row.content)).size).toBe(1);
    await groupCommit.close();
  });

  it.runIf(ENGINE === 'sqlite')('the write tracker counts the writes made in a batch', async () => {
    const before = t.storage.writes.stamp(['memory_entries']);
    await Promise.all(
      [entry(), entry()].map((row) =>
        t.storage.groupCommit.run(async (trx) => {
          await trx.insertInto('memory_entries').values(row).execute();
        }),
      ),
    );
    expect(t.storage.writes.stamp(['memory_entries'])).toBeGreaterThan(before!);
  });

  it.runIf(ENGINE === 'sqlite')('SQLite transactions take the write lock when they begin (BEGIN IMMEDIATE)', async () => {
    const other = new BetterSqlite3(path.join(t.config.dataDir, DATABASE_FILE));
    other.pragma('busy_timeout = 0');
    try {
      await t.storage.groupCommit.run(async (trx) => {
        // The unit has only read so far; a deferred BEGIN would not hold the write lock yet.
        await trx.selectFrom('users').select('id').execute();
        expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(/locked|busy/i);
      });
      other.exec('BEGIN IMMEDIATE');
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
  });
});
