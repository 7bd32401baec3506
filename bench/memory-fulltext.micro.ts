/**
 * What the database's full-text index of memory entries cost each write, without HTTP: per
 * engine, two databases migrated to this version (no such index since migration 0043), one of
 * them given the index back as migration 0003 made it (SQLite: the FTS5 table and its triggers;
 * PostgreSQL: the weighted `tsvector` column and its GIN index), and the same rows inserted into
 * both as the write path inserts them (multi-row INSERTs in a transaction, BENCH_BATCH rows
 * each), in interleaved rounds (with, without, without, with, …). Timed by the CPU of what does
 * the work: this process on SQLite (the engine runs in it), the connection's own backend on
 * PostgreSQL (read from /proc: the tsvector and the GIN entries are made there, and the other
 * processes of a shared server are left out). Steady enough to compare on a busy machine, where
 * the write row of `npm run bench` drifts by more than the difference.
 *
 * Run: npx tsx bench/memory-fulltext.micro.ts
 *   BENCH_ENGINES (sqlite,postgres), BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test:
 *   a database is created beside it and dropped at the end), ROUNDS (8), ROWS per round and
 *   database (3,000 on SQLite, 10,000 on PostgreSQL, whose CPU is read in 10 ms ticks),
 *   BENCH_BATCH (13: the batch size of the bench's write row).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { createFullTextIndex } from '../src/storage/search/full-text.js';
import { migrateToLatest } from '../src/storage/storage.js';
import { BenchDatabases, DEFAULT_DATABASE_URL } from './lib/postgres.js';
import { median } from './lib/report.js';
import { positive } from './lib/settings.js';

const ROUNDS = Math.round(positive('ROUNDS', 8));
const BATCH = Math.round(positive('BENCH_BATCH', 13));
const engines = (process.env.BENCH_ENGINES || 'sqlite,postgres').split(',').map((e) => e.trim());
const databaseUrl = process.env.BENCH_DATABASE_URL || DEFAULT_DATABASE_URL;
const WORDS = 'boiler quarterly review garden coffee passport dentist invoice october train window seat recipe'.split(' ');
const COLUMNS = ['id', 'owner_id', 'content', 'created_at', 'updated_at', 'channel', 'kind', 'tags', 'pinned', 'supersedes', 'seen_count', 'content_key'];
const OWNER = 'usr_bench';
const INDEX = (rowKey: string) => ({ table: 'memory_entries', rowKey, columns: [{ name: 'content', weight: 1 }] });

interface Version {
  name: string;
  /** Inserts one batch of rows (BATCH × COLUMNS values) in a transaction of its own. */
  batch(values: unknown[]): Promise<void> | void;
  /** CPU time so far, µs, of what runs the database's work. */
  cpu(): number;
  close(): Promise<void> | void;
  micros: number[];
}

function rowValues(n: number): unknown[] {
  const at = new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
  const content = `Bench write ${n}: the owner asked to be reminded about the ${WORDS[n % WORDS.length]} and the ${WORDS[(n * 7) % WORDS.length]} ${n % 97}.`;
  return [`mem_${n.toString(36).padStart(10, '0')}`, OWNER, content, at, at, 'api', 'note', '[]', 0, '[]', 1, `key${n}`];
}

const processCpu = () => {
  const used = process.cpuUsage();
  return used.user + used.system;
};

async function sqliteVersion(dir: string, name: string, withIndex: boolean): Promise<Version> {
  const raw = new BetterSqlite3(path.join(dir, `${withIndex ? 'with' : 'without'}.db`));
  raw.pragma('journal_mode = WAL');
  const db = new Kysely<never>({ dialect: new SqliteDialect({ database: raw }) });
  await migrateToLatest(db as never, 'sqlite');
  if (withIndex) await createFullTextIndex(db as never, 'sqlite', INDEX('rid'));
  // The server syncs each commit (synchronous=FULL); the sync is I/O, not the index's CPU, and the same for both.
  raw.pragma('synchronous = NORMAL');
  // One owner's rows without the owner's account: the foreign key is not what is measured.
  raw.pragma('foreign_keys = OFF');
  const one = `(${COLUMNS.map(() => '?').join(', ')})`;
  const insert = raw.prepare(`INSERT INTO memory_entries (${COLUMNS.join(', ')}) VALUES ${Array.from({ length: BATCH }, () => one).join(', ')}`);
  const batch = raw.transaction((values: unknown[]) => insert.run(values));
  return { name, batch: (values) => void batch(values), cpu: processCpu, close: () => void raw.close(), micros: [] };
}

/** utime + stime of one process, µs (/proc counts 10 ms ticks). */
function processCpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function postgresVersion(url: string, name: string, withIndex: boolean): Promise<Version> {
  const db = new Kysely<never>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
  await migrateToLatest(db as never, 'postgres');
  if (withIndex) await createFullTextIndex(db as never, 'postgres', INDEX('id'));
  await db.destroy();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const at = new Date().toISOString();
  await client.query(`INSERT INTO users (id, email, password_hash, role, plan_id, created_at, updated_at) VALUES ($1, 'bench@example.com', 'x', 'user', 'free', $2, $2)`, [
    OWNER,
    at,
  ]);
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const one = (row: number) => `(${COLUMNS.map((_, c) => `$${row * COLUMNS.length + c + 1}`).join(', ')})`;
  const text = `INSERT INTO memory_entries (${COLUMNS.join(', ')}) VALUES ${Array.from({ length: BATCH }, (_, row) => one(row)).join(', ')}`;
  return {
    name,
    async batch(values) {
      // A prepared statement, as the server's pool keeps them; committed on its own, as a batch is.
      await client.query({ name: 'insert_batch', text, values });
    },
    cpu: () => processCpuOf(pid),
    close: () => client.end(),
    micros: [],
  };
}

async function measure(engine: string, versions: Version[], rows: number): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so that neither is always measured right after the other.
    const order = round % 2 === 0 ? versions : [...versions].reverse();
    for (const version of order) {
      const before = version.cpu();
      for (let i = 0; i < rows; i += BATCH) {
        const values: unknown[] = [];
        for (let j = 0; j < BATCH; j++) values.push(...rowValues(round * rows + i + j));
        await version.batch(values);
      }
      version.micros.push((version.cpu() - before) / rows);
    }
  }
  console.log(`${engine}, ${ROUNDS} rounds of ${rows.toLocaleString('en-US')} rows each, batches of ${BATCH}:`);
  for (const version of versions) {
    const sorted = [...version.micros].sort((a, b) => a - b);
    console.log(`  ${version.name}: ${median(sorted).toFixed(1)} µs CPU per row (rounds ${sorted.map((m) => m.toFixed(1)).join(', ')})`);
  }
  const saved = versions[0]!.micros.map((m, i) => m - versions[1]!.micros[i]!).sort((a, b) => a - b);
  console.log(`  saved per row, round by round: median ${median(saved).toFixed(1)} µs (${saved.map((m) => m.toFixed(1)).join(', ')})`);
}

if (engines.includes('sqlite')) {
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-fts-micro-'));
  const versions = [await sqliteVersion(dir, 'with the FTS5 index (before)', true), await sqliteVersion(dir, 'without it (after)', false)];
  try {
    // Whole batches only.
    await measure('SQLite (this process)', versions, Math.ceil(positive('ROWS', 3_000) / BATCH) * BATCH);
  } finally {
    for (const version of versions) await version.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
if (engines.includes('postgres')) {
  const databases = new BenchDatabases(databaseUrl);
  const versions: Version[] = [];
  try {
    versions.push(await postgresVersion(await databases.create(), 'with the tsvector column and its GIN index (before)', true));
    versions.push(await postgresVersion(await databases.create(), 'without them (after)', false));
    await measure("PostgreSQL (the connection's backend)", versions, Math.ceil(positive('ROWS', 10_000) / BATCH) * BATCH);
  } finally {
    for (const version of versions) await version.close();
    await databases.dropAll();
  }
}
