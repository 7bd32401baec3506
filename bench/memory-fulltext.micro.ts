/**
 * What SQLite's full-text index of memory entries cost each write, without HTTP: two databases
 * migrated to this version (no such index since migration 0043), one of them given the index back
 * as migration 0003 made it (the FTS5 table and its triggers), and the same rows inserted into
 * both as the write path inserts them (multi-row INSERTs in a transaction, BENCH_BATCH rows
 * each), in interleaved rounds (with, without, without, with, …), timed by this process's CPU
 * (SQLite runs in it). Deterministic enough to compare on a busy machine, where the write row of
 * `npm run bench` drifts by more than the difference.
 *
 * Run: npx tsx bench/memory-fulltext.micro.ts
 *   ROUNDS (8), ROWS per round and database (3,000), BENCH_BATCH (13: the bench's batch size).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { createFullTextIndex } from '../src/storage/search/full-text.js';
import { migrateToLatest } from '../src/storage/storage.js';
import { median } from './lib/report.js';
import { positive } from './lib/settings.js';

const ROUNDS = Math.round(positive('ROUNDS', 8));
const BATCH = Math.round(positive('BENCH_BATCH', 13));
// Whole batches only.
const ROWS = Math.ceil(positive('ROWS', 3_000) / BATCH) * BATCH;
const WORDS = 'boiler quarterly review garden coffee passport dentist invoice october train window seat recipe'.split(' ');

const dir = mkdtempSync(path.join(tmpdir(), 'hearth-fts-micro-'));

async function database(name: string, withIndex: boolean) {
  const file = path.join(dir, `${name}.db`);
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  const db = new Kysely<never>({ dialect: new SqliteDialect({ database: raw }) });
  await migrateToLatest(db as never, 'sqlite');
  if (withIndex) await createFullTextIndex(db as never, 'sqlite', { table: 'memory_entries', rowKey: 'rid', columns: [{ name: 'content', weight: 1 }] });
  // The server syncs each commit (synchronous=FULL); the sync is I/O, not the index's CPU, and the same for both.
  raw.pragma('synchronous = NORMAL');
  // One owner's rows without the owner's account: the foreign key is not what is measured.
  raw.pragma('foreign_keys = OFF');
  const columns = ['id', 'owner_id', 'content', 'created_at', 'updated_at', 'channel', 'kind', 'tags', 'pinned', 'supersedes', 'seen_count', 'content_key'];
  const one = `(${columns.map(() => '?').join(', ')})`;
  const insert = raw.prepare(`INSERT INTO memory_entries (${columns.join(', ')}) VALUES ${Array.from({ length: BATCH }, () => one).join(', ')}`);
  const batch = raw.transaction((values: unknown[]) => insert.run(values));
  return { name, raw, batch, micros: [] as number[] };
}

function rowValues(n: number): unknown[] {
  const at = new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
  const content = `Bench write ${n}: the owner asked to be reminded about the ${WORDS[n % WORDS.length]} and the ${WORDS[(n * 7) % WORDS.length]} ${n % 97}.`;
  return [`mem_${n.toString(36).padStart(10, '0')}`, 'usr_bench', content, at, at, 'api', 'note', '[]', 0, '[]', 1, `key${n}`];
}

const versions = [await database('with the FTS5 index (before)', true), await database('without it (after)', false)];
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so that neither is always measured right after the other.
    const order = round % 2 === 0 ? versions : [...versions].reverse();
    for (const version of order) {
      const before = process.cpuUsage();
      for (let i = 0; i < ROWS; i += BATCH) {
        const values: unknown[] = [];
        for (let j = 0; j < BATCH; j++) values.push(...rowValues(round * ROWS + i + j));
        version.batch(values);
      }
      const used = process.cpuUsage(before);
      version.micros.push((used.user + used.system) / ROWS);
    }
  }
  for (const version of versions) {
    const sorted = [...version.micros].sort((a, b) => a - b);
    console.log(`${version.name}: ${median(sorted).toFixed(1)} µs CPU per row (rounds ${sorted.map((m) => m.toFixed(1)).join(', ')})`);
  }
  const saved = versions[0]!.micros.map((m, i) => m - versions[1]!.micros[i]!).sort((a, b) => a - b);
  console.log(`saved per row, round by round: median ${median(saved).toFixed(1)} µs (${saved.map((m) => m.toFixed(1)).join(', ')})`);
} finally {
  for (const version of versions) version.raw.close();
  rmSync(dir, { recursive: true, force: true });
}
