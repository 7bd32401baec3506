import { sql } from 'kysely';
import { isoNow } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { Dialect } from '../../storage/dialect.js';
import type { ErasureTables } from './erasure.tables.js';

/**
 * A column of the migrated database that holds an account's id: the table's rows are the
 * account's (`owner_id`, `user_id`), or, with `asTarget`, name the account as what they are about
 * (the audit log's `target_type = 'user'`, `target_id`).
 */
export interface AccountReference {
  table: string;
  column: string;
  asTarget?: true;
}

/** The column names that say whose a row is, in every module's tables (docs/decisions/tokens-and-accounts.md). */
const OWNER_COLUMNS = new Set(['owner_id', 'user_id']);
/** The account row itself, deleted last; and the erasure's own marker, removed before the commit. */
const HANDLED_APART = new Set(['users', 'account_erasures']);
/** Passes over the tables at most: a pass can make rows (PostgreSQL's search generations, bumped by a delete's trigger). */
const MAX_PASSES = 4;

/** Every column of every table, as the database has them now. */
async function columnsByTable(db: Executor, dialect: Dialect): Promise<Map<string, Set<string>>> {
  const rows =
    dialect === 'postgres'
      ? (
          await sql<{ table_name: string; column_name: string }>`
            SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`.execute(db)
        ).rows
      : (
          await sql<{ table_name: string; column_name: string }>`
            SELECT m.name AS table_name, p.name AS column_name FROM sqlite_master m, pragma_table_info(m.name) p
            WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`.execute(db)
        ).rows;
  const tables = new Map<string, Set<string>>();
  for (const row of rows) {
    const columns = tables.get(row.table_name) ?? new Set<string>();
    columns.add(row.column_name);
    tables.set(row.table_name, columns);
  }
  return tables;
}

export function createErasureRepo(db: Executor<ErasureTables>, dialect: Dialect) {
  const untyped = db as Executor;
  return {
    /**
     * Where the database holds accounts' ids, read from the database itself rather than from a
     * list kept by hand: a table a module adds later, with an `owner_id` or `user_id` column, is
     * erased with the rest without a change here (erasure.every-table.test.ts reads every table to prove it).
     */
    async references(): Promise<AccountReference[]> {
      const found: AccountReference[] = [];
      for (const [table, columns] of [...(await columnsByTable(untyped, dialect))].sort(([a], [b]) => a.localeCompare(b))) {
        if (HANDLED_APART.has(table)) continue;
        for (const column of columns) if (OWNER_COLUMNS.has(column)) found.push({ table, column });
        if (columns.has('target_type') && columns.has('target_id')) found.push({ table, column: 'target_id', asTarget: true });
      }
      return found;
    },

    transaction<T>(work: (trx: Executor<ErasureTables>) => Promise<T>): Promise<T> {
      return db.transaction().execute(work);
    },

    /**
     * The account, inside the erasing transaction: its row is locked (PostgreSQL) first, so that a
     * write of the account on another connection, whose foreign key checks that row, waits for
     * the erasure and then fails instead of landing between two deletes.
     */
    async account(ownerId: string, trx: Executor<ErasureTables>): Promise<{ id: string; role: 'admin' | 'user' } | undefined> {
      let query = trx.selectFrom('users').select(['id', 'role']).where('id', '=', ownerId);
      if (dialect === 'postgres') query = query.forUpdate();
      return query.executeTakeFirst();
    },

    async otherAccounts(ownerId: string, trx?: Executor<ErasureTables>): Promise<number> {
      const row = await (trx ?? db)
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('id', '<>', ownerId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /**
     * PostgreSQL's shared counters of the account: rate-limit and quota windows keyed by its id,
     * and the password attempts keyed by its email (`pw:<kind>:<email>`, with `\n<address>` after
     * it per address). On SQLite they live in the process and run out with their window.
     */
    async forgetCounters(account: { id: string; email: string }): Promise<number> {
      if (dialect !== 'postgres') return 0;
      const result = await db
        .deleteFrom('shared_counters')
        .where((eb) =>
          eb.or([
            sql<boolean>`strpos(key, ${account.id}) > 0`,
            eb.and([eb('key', 'like', 'pw:%'), eb.or([sql<boolean>`right(key, ${account.email.length + 1}) = ${`:${account.email}`}`, sql<boolean>`strpos(key, ${`:${account.email}
`}) > 0`])]),
          ]),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Marks the account as being erased, for the audit log's guard; `unmark` before the commit. */
    async mark(ownerId: string, trx: Executor<ErasureTables>): Promise<void> {
      await trx.insertInto('account_erasures').values({ owner_id: ownerId, started_at: isoNow() }).execute();
    },

    async unmark(ownerId: string, trx: Executor<ErasureTables>): Promise<void> {
      await trx.deleteFrom('account_erasures').where('owner_id', '=', ownerId).execute();
    },

    /**
     * Deletes every row that `references` ties to the account, then the account, in `trx`; the
     * counts per table. Passes repeat until one deletes nothing, since a delete's trigger may
     * write a row of the account elsewhere (PostgreSQL's search generations).
     */
    async eraseRows(ownerId: string, references: readonly AccountReference[], trx: Executor<ErasureTables>): Promise<Record<string, number>> {
      const t = trx as Executor;
      const counts: Record<string, number> = {};
      const pass = async (): Promise<number> => {
        let deleted = 0;
        for (const ref of references) {
          let query = t.deleteFrom(ref.table).where(ref.column, '=', ownerId);
          if (ref.asTarget) query = query.where('target_type', '=', 'user');
          const n = Number((await query.executeTakeFirst()).numDeletedRows);
          if (n > 0) counts[ref.table] = (counts[ref.table] ?? 0) + n;
          deleted += n;
        }
        return deleted;
      };
      const untilNothingLeft = async (): Promise<void> => {
        let passes = 0;
        while ((await pass()) > 0) {
          if (++passes >= MAX_PASSES) throw new Error(`Erasing account ${ownerId}: rows kept appearing after ${MAX_PASSES} passes`);
        }
      };
      await untilNothingLeft();
      counts.users = Number((await t.deleteFrom('users').where('id', '=', ownerId).executeTakeFirst()).numDeletedRows);
      // Whatever the account row's foreign keys cascaded to may have triggered writes too.
      await untilNothingLeft();
      return counts;
    },
  };
}

export type ErasureRepo = ReturnType<typeof createErasureRepo>;
