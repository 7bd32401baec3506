import { sql } from 'kysely';
import type { Dialect } from './dialect.js';
import type { Executor } from './columns.js';

/**
 * Group commit: the writes of concurrent requests share one transaction, so that one durable
 * commit (one fsync with SQLite's synchronous=FULL, one WAL flush on PostgreSQL) acknowledges
 * many of them. Commits, not statements, are what limit the rate of small writes.
 *
 * Repositories use it, behind their write methods (`create`, `update`, `delete`…); services
 * call those methods and never build units or batches themselves.
 *
 * `run(unit)` queues a unit of work; the units queued while the previous batch was committing
 * (or, when idle, in the same turn of the event loop) run back to back in ONE transaction, and
 * each caller's promise settles only after that transaction has committed: a request is never
 * acknowledged before its write is durable.
 *
 * A failing unit fails alone. The batch runs optimistically, with no savepoints; when a unit
 * throws, the whole batch is rolled back and run again with a savepoint around each unit, so
 * that the failing unit is rolled back to its savepoint and its error goes to its own caller,
 * while the others commit.
 *
 * THE RULE FOR UNITS: a unit may run twice (the second time after the first was rolled back).
 * It must therefore do all its database work through the `trx` it is given, never through the
 * shared `db` (on SQLite that would wait for the connection the batch holds, for ever), and must
 * have no other effect (no cache changes, no calls out, no events) before its promise settles;
 * whatever must follow the write is done by the caller after `run` resolves. A unit should
 * return, not throw, for outcomes that are not errors of the write (a row not found): a throw
 * costs the whole batch a second run.
 *
 * `runBatched(work, item)` queues an item of a kind of work, for writes that many requests make
 * alike (a new memory entry): the items of one `work` queued one after another run in ONE call
 * of `work.run`, which writes them all with a statement or two (one multi-row INSERT) where
 * units would take a round trip to the database each. When the batch runs again with
 * savepoints, `work.run` is called with each item alone, inside that item's savepoint, so a
 * failing item still fails alone. `work.run` follows the rule for units.
 */
export interface GroupCommit {
  run<T>(unit: (trx: Executor) => Promise<T>): Promise<T>;
  runBatched<I, R>(work: BatchedWork<I, R>, item: I): Promise<R>;
  /** Waits for every queued unit and every batch in flight; later `run` calls are refused. */
  close(): Promise<void>;
}

/**
 * A kind of write whose items share statements. The same object must be given for every item
 * (items are grouped by its identity); `run` answers one result per item, in their order.
 */
export interface BatchedWork<I, R> {
  run(trx: Executor, items: readonly I[]): Promise<R[]>;
  /**
   * True when `run` writes these items with one statement and reads nothing. A batch of them
   * alone then runs without BEGIN and COMMIT: the statement commits by itself, all its rows or
   * none, and with PostgreSQL that saves two of the batch's three round trips. It is durable
   * when it returns, as a COMMIT is.
   */
  oneStatement?(items: readonly I[]): boolean;
}

export interface GroupCommitOptions {
  /** Units in one transaction at most: bounds how long a batch holds its connection. */
  maxBatch?: number;
  /** Batches committing at once (each on its own connection): 1 on SQLite, which has one. */
  maxInFlight?: number;
  /** Units waiting at most; beyond, `run` answers 503 at once instead of holding more memory. */
  maxQueued?: number;
}

interface Queued {
  work: BatchedWork<unknown, unknown>;
  item: unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Times the unit was put back in the queue after losing a lock conflict. */
  requeued: number;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * More units wait than the queue holds. The HTTP layer answers it by its code (503 with
 * Retry-After, see http/errors.ts): storage knows nothing of HTTP.
 */
export class WritesOverloadedError extends Error {
  readonly code = 'WRITES_OVERLOADED';
  constructor(readonly waiting: number) {
    super(`The server is taking more writes than it can commit (${waiting} are waiting). Send it again in a moment`);
    this.name = 'WritesOverloadedError';
  }
}

/**
 * PostgreSQL's deadlock and serialization failures. Batches hold their row locks until they
 * commit, so two batches in flight can deadlock where the single statements they carry never
 * could (one updates entry a then b, the other b then a). PostgreSQL aborts one of them; its
 * unit is then put back in the queue, to run once the other batch has committed, rather than
 * failing a request that did nothing wrong.
 */
const LOCK_CONFLICTS = new Set(['40P01', '40001']);
const MAX_REQUEUES = 3;

function isLockConflict(error: unknown): boolean {
  return LOCK_CONFLICTS.has((error as { code?: unknown } | undefined)?.code as string);
}

/** Thrown inside the optimistic attempt to roll it back; never leaves this file. */
class RetryWithSavepoints extends Error {}

const DEFAULTS: Record<Dialect, Required<GroupCommitOptions>> = {
  // One connection: one batch at a time. The batch is whatever queued during the last commit.
  sqlite: { maxBatch: 256, maxInFlight: 1, maxQueued: 10_000 },
  // The pool has 10 connections; a few batches commit at once and the rest stay for reads.
  postgres: { maxBatch: 64, maxInFlight: 4, maxQueued: 10_000 },
};

export function createGroupCommit(db: Executor, dialect: Dialect, options: GroupCommitOptions = {}): GroupCommit {
  const { maxBatch, maxInFlight, maxQueued } = { ...DEFAULTS[dialect], ...options };
  const queue: Queued[] = [];
  let inFlight = 0;
  let scheduled = false;
  let closed = false;
  let drained: (() => void) | undefined;
  let closing: Promise<void> | undefined;

  function schedule(): void {
    if (scheduled || queue.length === 0 || inFlight >= maxInFlight) return;
    scheduled = true;
    // setImmediate, not a microtask: the requests whose bodies arrived in this turn of the event
    // loop all queue their units before the batch is taken.
    setImmediate(() => {
      scheduled = false;
      while (queue.length > 0 && inFlight < maxInFlight) {
        const batch = queue.splice(0, maxBatch);
        inFlight += 1;
        void commitBatch(batch).finally(() => {
          inFlight -= 1;
          if (queue.length > 0) schedule();
          else if (inFlight === 0) drained?.();
        });
      }
    });
  }

  async function runOptimistic(batch: Queued[]): Promise<Outcome[]> {
    const work = batch[0]!.work;
    if (work.oneStatement && batch.every((queued) => queued.work === work)) {
      const items = batch.map((queued) => queued.item);
      if (work.oneStatement(items)) {
        let values: unknown[];
        try {
          values = await work.run(db, items);
        } catch (error) {
          if (batch.length === 1) throw error;
          throw new RetryWithSavepoints();
        }
        if (values.length !== batch.length) throw new Error(`A batched write answered ${values.length} results for ${batch.length} items`);
        return values.map((value) => ({ ok: true, value }));
      }
    }
    return db.transaction().execute(async (trx) => {
      const outcomes: Outcome[] = [];
      for (let start = 0; start < batch.length; ) {
        // The items of one work queued one after another: one call.
        const work = batch[start]!.work;
        let end = start + 1;
        while (end < batch.length && batch[end]!.work === work) end += 1;
        let values: unknown[];
        try {
          values = await work.run(trx, batch.slice(start, end).map((queued) => queued.item));
        } catch (error) {
          // Alone, the unit's own error is the answer, and the transaction rolls back with it.
          if (batch.length === 1) throw error;
          throw new RetryWithSavepoints();
        }
        if (values.length !== end - start) throw new Error(`A batched write answered ${values.length} results for ${end - start} items`);
        for (const value of values) outcomes.push({ ok: true, value });
        start = end;
      }
      return outcomes;
    });
  }

  async function runIsolated(batch: Queued[]): Promise<Outcome[]> {
    return db.transaction().execute(async (trx) => {
      const outcomes: Outcome[] = [];
      for (const item of batch) {
        await sql`SAVEPOINT unit`.execute(trx);
        try {
          const [value] = await item.work.run(trx, [item.item]);
          await sql`RELEASE SAVEPOINT unit`.execute(trx);
          outcomes.push({ ok: true, value });
        } catch (error) {
          await sql`ROLLBACK TO SAVEPOINT unit`.execute(trx);
          await sql`RELEASE SAVEPOINT unit`.execute(trx);
          outcomes.push({ ok: false, error });
        }
      }
      return outcomes;
    });
  }

  /** A unit that failed: answered, or queued again in front when it lost a lock conflict. */
  function fail(item: Queued, error: unknown, again: Queued[]): void {
    if (isLockConflict(error) && item.requeued < MAX_REQUEUES) {
      item.requeued += 1;
      again.push(item);
    } else {
      item.reject(error);
    }
  }

  async function commitBatch(batch: Queued[]): Promise<void> {
    const again: Queued[] = [];
    let outcomes: Outcome[];
    try {
      try {
        outcomes = await runOptimistic(batch);
      } catch (error) {
        if (!(error instanceof RetryWithSavepoints)) throw error;
        outcomes = await runIsolated(batch);
      }
    } catch (error) {
      // BEGIN or COMMIT failed (or a lone unit threw): nothing of the batch was written.
      for (const item of batch) fail(item, error, again);
      queue.unshift(...again);
      return;
    }
    // Committed: only now does any caller hear about its write.
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else fail(item, outcome.error, again);
    });
    // Taken by the next batch, once this one's locks are released.
    queue.unshift(...again);
  }

  function enqueue<R>(work: BatchedWork<unknown, unknown>, item: unknown): Promise<R> {
    if (closed) return Promise.reject(new Error('The storage is closing; no more writes are taken'));
    if (queue.length >= maxQueued) {
      return Promise.reject(new WritesOverloadedError(queue.length));
    }
    return new Promise<R>((resolve, reject) => {
      queue.push({ work, item, resolve: resolve as (value: unknown) => void, reject, requeued: 0 });
      schedule();
    });
  }

  return {
    run<T>(unit: (trx: Executor) => Promise<T>): Promise<T> {
      // A work of its own: a unit is never grouped with another.
      return enqueue<T>({ run: async (trx) => [await unit(trx as Executor)] }, undefined);
    },

    runBatched<I, R>(work: BatchedWork<I, R>, item: I): Promise<R> {
      return enqueue<R>(work as BatchedWork<unknown, unknown>, item);
    },

    close(): Promise<void> {
      closed = true;
      if (queue.length === 0 && inFlight === 0) return Promise.resolve();
      // One promise for every caller: closing twice waits for the same drain.
      closing ??= new Promise<void>((resolve) => {
        drained = resolve;
        schedule();
      });
      return closing;
    },
  };
}
