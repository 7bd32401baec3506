/**
 * The JavaScript cost of a batch of new memory entries' INSERT on SQLite, two ways through the
 * same Kysely connection on in-memory databases: the query built by Kysely from the rows (24
 * values a row) and compiled, as the repository did, and the SQL text made once per number of
 * rows with the values passed in order, as it does now (memory.repo.ts, `sqliteInsertText`).
 * Interleaved rounds, timed by this process's CPU; SQLite's own work is the same on both sides.
 *
 *   npx tsx bench/memory-insert.micro.ts [rows a batch = 30] [batches a round = 1500]
 */
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';

const BATCH = Number(process.argv[2] ?? 30);
const BATCHES = Number(process.argv[3] ?? 1500);
const ROUNDS = 6;

const INTEGER_COLUMNS = new Set(['pinned', 'seen_count', 'pin_order']);
const COLUMNS = [
  'id', 'owner_id', 'content', 'created_at', 'updated_at', 'author_token_id', 'channel', 'author', 'editor', 'source', 'kind', 'tags',
  'valid_from', 'valid_until', 'supersedes', 'superseded_by', 'superseded_at', 'content_key', 'last_seen_at', 'last_seen_by',
  'pinned', 'seen_count', 'pin_order',
];

/** A database with the entries' columns, behind a statement cache keyed by SQL text as the server's. */
function open() {
  const database = new BetterSqlite3(':memory:');
  database.exec(`CREATE TABLE memory_entries (rid INTEGER PRIMARY KEY, ${COLUMNS.map((c) => `${c} ${INTEGER_COLUMNS.has(c) ? 'integer' : 'text'}`).join(', ')})`);
  const cache = new Map<string, BetterSqlite3.Statement>();
  const cached: SqliteDatabase = {
    close: () => database.close(),
    prepare(sqlText: string): SqliteStatement {
      let statement = cache.get(sqlText);
      if (!statement) cache.set(sqlText, (statement = database.prepare(sqlText)));
      return statement as unknown as SqliteStatement;
    },
  };
  return { database, db: new Kysely<any>({ dialect: new SqliteDialect({ database: cached }) }) };
}

let made = 0;
/** A row shaped as the server's (texts of about its lengths, the usual nulls). */
function row(): Record<string, unknown> {
  const i = made++;
  return Object.fromEntries(
    COLUMNS.map((c) => {
      if (c === 'pinned' || c === 'seen_count') return [c, 0];
      if (['pin_order', 'editor', 'source', 'valid_from', 'valid_until', 'superseded_by', 'superseded_at', 'last_seen_at', 'last_seen_by'].includes(c)) return [c, null];
      return [c, `${c} ${i} ${'x'.repeat(c === 'content' ? 80 : c === 'author' ? 120 : 10)}`];
    }),
  );
}

const texts: string[] = [];
function textFor(rows: number): string {
  return (texts[rows] ??= `insert into "memory_entries" (${COLUMNS.map((c) => `"${c}"`).join(', ')}) values ${Array.from({ length: rows }, () => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ')} on conflict do nothing returning "id"`);
}

const built = open();
const once = open();
const ways = {
  async built() {
    const rows = Array.from({ length: BATCH }, row);
    await built.db.insertInto('memory_entries').values(rows).onConflict((oc) => oc.doNothing()).returning('id').execute();
  },
  async once() {
    const rows = Array.from({ length: BATCH }, row);
    const parameters: unknown[] = [];
    for (const r of rows) for (const c of COLUMNS) parameters.push(r[c]);
    await once.db.executeQuery(CompiledQuery.raw(textFor(BATCH), parameters));
  },
};

console.log(`${BATCH} rows a batch, ${BATCHES} batches a round and way, ${ROUNDS} rounds; µs of CPU a row`);
for (let round = 1; round <= ROUNDS; round++) {
  const line: string[] = [];
  for (const [name, run] of Object.entries(ways)) {
    const before = process.cpuUsage();
    for (let i = 0; i < BATCHES; i++) await run();
    const used = process.cpuUsage(before);
    line.push(`${name} ${((used.user + used.system) / BATCHES / BATCH).toFixed(2)}`);
  }
  console.log(`round ${round}: ${line.join(', ')}`);
  // The tables kept small, so that the rounds compare like with like.
  built.database.exec('DELETE FROM memory_entries');
  once.database.exec('DELETE FROM memory_entries');
}
