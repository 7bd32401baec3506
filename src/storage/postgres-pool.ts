import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { changesNothingCached } from './write-tracker.js';

/**
 * The pool Kysely's PostgresDialect is given: pg's pool, with two additions on every connection.
 *
 * Named prepared statements. pg parses and plans a statement on every call unless it is named;
 * Kysely never names one. Here each parameterized statement is named after a hash of its SQL
 * text, so each connection parses it once and PostgreSQL can reuse its plan. A connection
 * keeps at most `maxStatements` of them (server memory stays bounded whatever SQL the app
 * builds): a statement past the bound runs unnamed, and the connection is closed when it is
 * released, so the pool opens a fresh one. A connection whose prepared plan no longer fits the
 * table (another node's migration changed it) is closed the same way, and the statement, unless
 * inside a transaction, runs again unnamed.
 *
 * Schema changes sent together. Inside a transaction, a statement that creates, alters or drops
 * a schema object (a migration's) and has no parameters is held, and the ones held go in one
 * round trip (pg's simple protocol takes several statements in one text) just before the next
 * other statement, the COMMIT at the latest. Nothing reads what such a statement answers; an
 * error it raises comes with that next statement, still inside the transaction, which then
 * rolls back whole. The first start on an empty database runs some hundred of them.
 *
 * Committed writes. A write becomes visible to other connections when it commits: the
 * statement itself outside a transaction, or the COMMIT of its transaction. `onCommit` is told
 * the tables written then, before the caller's await returns, so before any request that made
 * the write is acknowledged. That is what lets caches of derived answers work with a pool of
 * connections (see write-tracker.ts).
 */
export interface StatementPoolOptions {
  pool: pg.Pool;
  maxStatements: number;
  onCommit(tables: ReadonlySet<string> | 'unknown'): void;
}

type Control = 'begin' | 'commit' | 'rollback';

interface Statement {
  /** The prepared statement's name; none for a statement without parameters (pg's simple protocol, which allows several statements in one text). */
  name: string | undefined;
  control: Control | undefined;
  /** The table a write changes ('unknown': a write whose table cannot be told), undefined for a read. */
  writes: string | 'unknown' | undefined;
}

interface ClientState {
  wrapper: PostgresPoolClient;
  /** Schema changes held until the next other statement of the transaction. */
  held: string[];
  named: Set<string>;
  /** Close rather than return to the pool when released. */
  retire: boolean;
  inTransaction: boolean;
  written: Set<string> | 'unknown' | undefined;
}

const CONTROL = /^\s*(begin|start\s+transaction|commit|end|rollback|abort)\b(\s+to\b)?/i;
const WRITE = /^\s*(?:insert\s+into|update|delete\s+from)\s+(?:only\s+)?((?:"[^"]+"|\w+)(?:\.(?:"[^"]+"|\w+))?)/i;
const READ = /^\s*(select|show|set|reset|listen|unlisten|explain|savepoint|release|values)\b/i;
const WRITE_WORD = /\b(insert|update|delete|merge|truncate)\b/i;
/**
 * An UPDATE whose SET list is only columns given parameters (`"a" = $1, "b" = $2`), as Kysely
 * writes it: the list, for `changesNothingCached`. Any other shape counts as a write of the table.
 */
const SIMPLE_SET = /^\s*update\s+(?:only\s+)?(?:"[^"]+"|\w+)(?:\.(?:"[^"]+"|\w+))?\s+set\s+((?:"?\w+"?\s*=\s*\$\d+\s*,\s*)*"?\w+"?\s*=\s*\$\d+)\s+where\s/i;
const SET_COLUMN = /"?(\w+)"?\s*=\s*\$\d+/g;
const SCHEMA_CHANGE = /^\s*(create|alter|drop|comment)\b/i;
/** The SQL texts whose name and kind are remembered; an app has some hundreds. */
const STATEMENTS_KEPT = 2000;

const statements = new Map<string, Statement>();

/** Parsed once per SQL text. Exported for its test. */
export function describeStatement(text: string, hasParameters: boolean): Statement {
  const key = hasParameters ? text : `\u0000${text}`;
  let statement = statements.get(key);
  if (statement) return statement;
  const control = CONTROL.exec(text);
  let writes: Statement['writes'];
  if (!control && !READ.test(text)) {
    const write = WRITE.exec(text);
    if (write) {
      writes = write[1]!.split('.').pop()!.replaceAll('"', '');
      const set = SIMPLE_SET.exec(text);
      if (set && changesNothingCached(writes, [...set[1]!.matchAll(SET_COLUMN)].map((m) => m[1]!))) writes = undefined;
    }
    // WITH … INSERT, MERGE, TRUNCATE, DDL and anything else not understood: any table.
    else if (!/^\s*with\b/i.test(text) || WRITE_WORD.test(text)) writes = 'unknown';
  }
  const word = control?.[1]?.toLowerCase();
  statement = {
    name: hasParameters ? `h_${createHash('sha256').update(text).digest('base64url').slice(0, 22)}` : undefined,
    // ROLLBACK TO SAVEPOINT ends no transaction.
    control: !word || control?.[2] ? undefined : word === 'begin' || word.startsWith('start') ? 'begin' : word === 'commit' || word === 'end' ? 'commit' : 'rollback',
    writes,
  };
  if (statements.size >= STATEMENTS_KEPT) statements.delete(statements.keys().next().value!);
  statements.set(key, statement);
  return statement;
}

/** "cached plan must not change result type": a table changed under a prepared statement. */
const isStalePlan = (error: unknown) => (error as { code?: string })?.code === '0A000';

export function createStatementPool(options: StatementPoolOptions): PostgresPool {
  const { pool, maxStatements, onCommit } = options;
  const states = new WeakMap<pg.PoolClient, ClientState>();

  function merge(state: ClientState, writes: string | 'unknown'): void {
    if (writes === 'unknown' || state.written === 'unknown') state.written = 'unknown';
    else (state.written ?? (state.written = new Set())).add(writes);
  }

  function stateOf(client: pg.PoolClient): ClientState {
    const state = states.get(client);
    if (state) return state;
    const s: ClientState = { held: [], named: new Set(), retire: false, inTransaction: false, written: undefined, wrapper: undefined! };
    s.wrapper = {
      query: (async (text: string, parameters: ReadonlyArray<unknown>) => {
        const statement = describeStatement(text, parameters.length > 0);
        if (s.inTransaction && !statement.name && statement.writes === 'unknown' && SCHEMA_CHANGE.test(text)) {
          s.held.push(text);
          merge(s, 'unknown');
          return { command: 'UTILITY', rowCount: 0, rows: [] } as unknown as PostgresQueryResult<unknown>;
        }
        if (s.held.length > 0) {
          const held = s.held.join(';\n');
          s.held = [];
          // After a ROLLBACK they would run outside any transaction: dropped with it instead.
          if (statement.control !== 'rollback') await client.query(held);
        }
        let name = statement.name;
        if (name && !s.named.has(name)) {
          if (s.named.size < maxStatements) s.named.add(name);
          else {
            name = undefined;
            s.retire = true;
          }
        }
        let result: pg.QueryResult;
        try {
          try {
            result = await client.query(name ? { name, text, values: parameters as unknown[] } : { text, values: parameters as unknown[] });
          } catch (error) {
            if (!name || !isStalePlan(error)) throw error;
            s.retire = true;
            // Outside a transaction nothing else failed with it: the statement runs again, unnamed.
            if (s.inTransaction) throw error;
            result = await client.query({ text, values: parameters as unknown[] });
          }
        } catch (error) {
          // A failed COMMIT or write may still have committed (the connection broke after the
          // server did it): counted as written, which costs a recomputation at most.
          if (statement.control === 'commit' && s.written) onCommit(s.written);
          else if (statement.writes && !s.inTransaction) onCommit(statement.writes === 'unknown' ? 'unknown' : new Set([statement.writes]));
          if (statement.control === 'commit' || statement.control === 'rollback') {
            s.inTransaction = false;
            s.written = undefined;
          }
          throw error;
        }
        if (statement.control === 'begin') {
          s.inTransaction = true;
          s.written = undefined;
        } else if (statement.control) {
          const written = s.written;
          s.inTransaction = false;
          s.written = undefined;
          if (statement.control === 'commit' && written) onCommit(written);
        } else if (statement.writes) {
          if (s.inTransaction) merge(s, statement.writes);
          else onCommit(statement.writes === 'unknown' ? 'unknown' : new Set([statement.writes]));
        }
        return result as unknown as PostgresQueryResult<unknown>;
      }) as PostgresPoolClient['query'],
      release: () => {
        if (s.retire) {
          states.delete(client);
          client.release(true);
        } else client.release();
      },
    };
    states.set(client, s);
    return s;
  }

  return {
    async connect() {
      return stateOf(await pool.connect()).wrapper;
    },
    end: () => pool.end(),
  };
}
