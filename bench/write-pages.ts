/**
 * Where SQLite's cost of a memory write goes: batches of new entries (the group commit's, 13 rows
 * by default) inserted with better-sqlite3 into copies of a seeded store, each copy changed one
 * way (an index dropped, a narrower key, a setting), in interleaved rounds, timed by this
 * process's CPU (user and system: SQLite's journal writes are system time). Then, for each copy,
 * the pages a commit writes to the write-ahead log, counted with checkpoints off.
 *
 *   DATA_DIR=<a store seeded by bench/seed-store.ts> npx tsx bench/write-pages.ts [variants]
 *   WRITE_ROUNDS (6), WRITE_BATCHES (300 a round and variant), WRITE_BATCH (13)
 *
 * Variants (comma-separated, default all): see VARIANTS below. The rows are those the server
 * writes for `POST /api/v1/memory` (every column, the same author record, a new text each), one
 * owner of the store's (the one with the fewest entries, as the bench's write row has), with
 * `synchronous = FULL` and WAL as the server opens the database.
 *
 * Since migration 0044 a store has no unique index of the text keys on SQLite (the server keeps
 * them in the process, src/modules/memory/memory.keys.ts): `today` is that schema, and
 * `key-index` puts the index back, as the schema was when the variants below were measured.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { newId } from '../src/lib/ids.js';
import { sameTextForm, sameTextKey } from '../src/lib/same-text.js';
import { positive } from './lib/settings.js';

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR must name a seeded store (bench/seed-store.ts)');
const ROUNDS = Math.round(positive('WRITE_ROUNDS', 6));
const BATCHES = Math.round(positive('WRITE_BATCHES', 300));
const BATCH = Math.round(positive('WRITE_BATCH', 13));

type Db = BetterSqlite3.Database;

interface Variant {
  name: string;
  what: string;
  /** Schema changes on the copy (once). */
  setup?(db: Db): void;
  /** Settings of the connection. */
  pragmas?: string[];
  /** Columns the row has beyond the server's (e.g. an integer key). */
  extra?(ownerId: string, content: string): Record<string, unknown>;
  /** The text key the row holds (the server's by default). */
  textKey?(content: string): string | null;
  /** A statement run in each batch's transaction before the insert, given the batch's text keys (a lookup of its own). */
  lookup?(db: Db, keys: string[]): void;
}

/** The first 8 bytes of SHA-256 of the owner and the compared form, as a signed 64-bit integer. */
function intKey(ownerId: string, content: string): bigint {
  return createHash('sha256').update(`${ownerId}\n${sameTextForm(content)}`).digest().readBigInt64BE(0);
}

const lookups = new WeakMap<Db, BetterSqlite3.Statement>();
const dropKeyIndex = (db: Db) => db.exec('DROP INDEX IF EXISTS memory_entries_owner_content_key');

/** The text key's unique index replaced by one on an 8-byte integer hash, over `columns`. */
function intKeyVariant(name: string, what: string, columns: string): Variant {
  return {
    name,
    what,
    setup(db) {
      dropKeyIndex(db);
      db.exec('ALTER TABLE memory_entries ADD COLUMN content_hash INTEGER');
      db.exec(`CREATE UNIQUE INDEX memory_entries_content_hash ON memory_entries ${columns}`);
    },
    extra: (ownerId, content) => ({ content_hash: intKey(ownerId, content) }),
    textKey: () => null,
  };
}

const VARIANTS: Variant[] = [
  { name: 'today', what: 'the schema and settings as they are' },
  { name: 'ckpt-10k', what: 'wal_autocheckpoint = 10000 pages', pragmas: ['wal_autocheckpoint = 10000'] },
  { name: 'ckpt-off', what: 'no automatic checkpoint (the WAL grows; a bound of its own needed)', pragmas: ['wal_autocheckpoint = 0'] },
  { name: 'cache-32m', what: 'cache_size = 32 MB (default 2 MB)', pragmas: ['cache_size = -32768'] },
  { name: 'mmap', what: 'mmap_size = 256 MB', pragmas: ['mmap_size = 268435456'] },
  intKeyVariant('int-key', 'unique (owner_id, key) on an 8-byte integer hash instead of the 46-character text key', '(owner_id, content_hash)'),
  intKeyVariant('int-key-only', 'unique (key) on an 8-byte integer hash of owner and text, no owner column in the index', '(content_hash)'),
  { ...intKeyVariant('int-key-ckpt', 'int-key-only and wal_autocheckpoint = 10000', '(content_hash)'), pragmas: ['wal_autocheckpoint = 10000'] },
  ...[2, 4, 16].map((merge): Variant => ({
    name: `fts-key-m${merge}`,
    what: `no unique index: the text keys in a contentless FTS5 table (merged in bulk, automerge ${merge}), looked up in the write transaction`,
    setup(db) {
      dropKeyIndex(db);
      db.exec(`CREATE VIRTUAL TABLE memory_keys USING fts5(content_key, content='', detail='none', columnsize=0, tokenize="unicode61 tokenchars '-_:'")`);
      db.exec(`INSERT INTO memory_keys (memory_keys, rank) VALUES ('automerge', ${merge})`);
      db.exec('INSERT INTO memory_keys (rowid, content_key) SELECT rid, content_key FROM memory_entries WHERE content_key IS NOT NULL');
      db.exec('CREATE TRIGGER memory_keys_ai AFTER INSERT ON memory_entries WHEN new.content_key IS NOT NULL BEGIN INSERT INTO memory_keys (rowid, content_key) VALUES (new.rid, new.content_key); END');
    },
    lookup(db, keys) {
      // The keys' rows first (CROSS JOIN keeps that order): the table has no index on the key now.
      const find =
        lookups.get(db) ??
        db.prepare('SELECT e.id FROM memory_keys k CROSS JOIN memory_entries e ON e.rid = k.rowid WHERE k.memory_keys MATCH ? AND e.owner_id = ? AND e.content_key = ?');
      lookups.set(db, find);
      for (const key of keys) if (find.get(`"${key}"`, writer.id, key)) throw new Error('a new text was found held');
    },
  })),
  {
    name: 'key-index',
    what: 'with the unique index of current texts (the schema before migration 0044)',
    setup: (db) => db.exec('CREATE UNIQUE INDEX IF NOT EXISTS memory_entries_owner_content_key ON memory_entries (owner_id, content_key)'),
  },
  { name: 'no-key', what: 'without the unique index of current texts (reference; the schema since migration 0044)', setup: dropKeyIndex },
  { name: 'no-author', what: 'without the author index (reference)', setup: (db) => db.exec('DROP INDEX memory_entries_owner_author') },
  { name: 'no-owner', what: 'without the (owner_id, id) index (reference)', setup: (db) => db.exec('DROP INDEX memory_entries_owner') },
];

const asked = process.argv[2]?.split(',').filter((v) => v !== '');
const chosen = asked ? VARIANTS.filter((v) => asked.includes(v.name)) : VARIANTS;
if (asked && chosen.length !== asked.length) throw new Error(`unknown variant among ${asked.join(', ')}: ${VARIANTS.map((v) => v.name).join(', ')}`);

const source = path.join(dataDir, 'hearth.db');
if (!existsSync(source)) throw new Error(`no hearth.db in ${dataDir}`);
{
  // Everything in the one file before it is copied.
  const db = new BetterSqlite3(source);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
const work = mkdtempSync(path.join(tmpdir(), 'hearth-write-pages-'));

function open(file: string, variant: Variant): Db {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  for (const p of variant.pragmas ?? []) db.pragma(p);
  return db;
}

interface Copy {
  variant: Variant;
  file: string;
  db: Db;
  insert: Map<number, BetterSqlite3.Statement>;
  columns: string[];
  cpu: number[];
  /** The system time's share of it, per round. */
  sys: number[];
  /** Wall time a row, per round: the server's one thread waits that long for SQLite (fsync included). */
  wall: number[];
}

// The owner with the fewest entries (the bench's writer), and an author record as the server stores it.
const probe = new BetterSqlite3(source, { readonly: true });
const owners = probe.prepare('SELECT id FROM users').pluck().all() as string[];
const counts = owners.map((id) => ({ id, n: (probe.prepare('SELECT count(*) FROM memory_entries WHERE owner_id = ?').pluck().get(id) as number) }));
const writer = counts.sort((a, b) => a.n - b.n)[0]!;
const template = probe.prepare("SELECT author_token_id, author FROM memory_entries WHERE author IS NOT NULL LIMIT 1").get() as { author_token_id: string; author: string };
const baseColumns = (probe.prepare('SELECT name FROM pragma_table_info(\'memory_entries\')').pluck().all() as string[]).filter((c) => c !== 'rid');
probe.close();
console.log(`store: ${owners.length} owners; writing as ${writer.id} (${writer.n} entries); ${BATCH} rows a batch, ${BATCHES} batches a round and variant, ${ROUNDS} rounds`);

const copies: Copy[] = chosen.map((variant) => {
  const file = path.join(work, `${variant.name}.db`);
  copyFileSync(source, file);
  const db = open(file, variant);
  variant.setup?.(db);
  const extraColumns = Object.keys(variant.extra?.('', '') ?? {});
  return { variant, file, db, insert: new Map(), columns: [...baseColumns.filter((c) => c !== 'content_hash'), ...extraColumns], cpu: [], sys: [], wall: [] };
});

let written = 0;
const RUN = Date.now().toString(36);

function row(copy: Copy): unknown[] {
  const now = new Date().toISOString();
  const content = `Bench write ${RUN}-${written++}: the owner asked to be reminded about the quarterly review.`;
  const values: Record<string, unknown> = {
    id: newId('mem'),
    owner_id: writer.id,
    content,
    created_at: now,
    updated_at: now,
    author_token_id: template.author_token_id,
    channel: 'api',
    author: template.author,
    editor: null,
    source: null,
    kind: 'note',
    tags: '[]',
    pinned: 0,
    valid_from: null,
    valid_until: null,
    supersedes: '[]',
    superseded_by: null,
    superseded_at: null,
    pin_order: null,
    content_key: copy.variant.textKey ? copy.variant.textKey(content) : sameTextKey(content),
    seen_count: 1,
    last_seen_at: null,
    last_seen_by: null,
    ...copy.variant.extra?.(writer.id, content),
  };
  return copy.columns.map((c) => values[c]);
}

function statement(copy: Copy, rows: number): BetterSqlite3.Statement {
  let s = copy.insert.get(rows);
  if (!s) {
    const one = `(${copy.columns.map(() => '?').join(', ')})`;
    s = copy.db.prepare(`INSERT INTO memory_entries (${copy.columns.join(', ')}) VALUES ${Array.from({ length: rows }, () => one).join(', ')} ON CONFLICT DO NOTHING RETURNING id`);
    copy.insert.set(rows, s);
  }
  return s;
}

function batch(copy: Copy): void {
  const rows = Array.from({ length: BATCH }, () => row(copy));
  const params = rows.flat();
  copy.db.exec('BEGIN IMMEDIATE');
  if (copy.variant.lookup) copy.variant.lookup(copy.db, rows.map((r) => r[copy.columns.indexOf('content_key')] as string));
  const ids = statement(copy, BATCH).all(...params);
  copy.db.exec('COMMIT');
  if (ids.length !== BATCH) throw new Error(`${copy.variant.name}: ${ids.length} of ${BATCH} rows written`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

try {
  // Warm-up: every statement prepared, the pages the writes touch read once.
  for (const copy of copies) for (let i = 0; i < 20; i++) batch(copy);
  for (let round = 1; round <= ROUNDS; round++) {
    // Each round in another order: neither the first nor the last is always the same copy.
    const order = round % 2 ? copies : [...copies].reverse();
    const line: string[] = [];
    for (const copy of order) {
      const before = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < BATCHES; i++) batch(copy);
      const used = process.cpuUsage(before);
      const perRow = (used.user + used.system) / (BATCHES * BATCH);
      copy.cpu.push(perRow);
      copy.sys.push(used.system / (BATCHES * BATCH));
      copy.wall.push(((performance.now() - started) * 1000) / (BATCHES * BATCH));
      line.push(`${copy.variant.name} ${perRow.toFixed(0)}/${copy.wall.at(-1)!.toFixed(0)}`);
    }
    console.log(`round ${round}: ${line.join(', ')} µs a row (CPU/wall)`);
  }
  console.log('\n| variant | CPU µs a row, median (min–max) | of it system | wall µs a row | pages a commit | rows in the copy | what |');
  console.log('|---|---|---|---|---|---|---|');
  for (const copy of copies) {
    // Pages a commit: with checkpoints off, the WAL only grows, by a frame (page + 24 bytes) a page.
    copy.db.pragma('wal_checkpoint(TRUNCATE)');
    copy.db.pragma('wal_autocheckpoint = 0');
    const pageSize = copy.db.pragma('page_size', { simple: true }) as number;
    const wal = `${copy.file}-wal`;
    const before = existsSync(wal) ? statSync(wal).size : 0;
    const commits = 50;
    for (let i = 0; i < commits; i++) batch(copy);
    const frames = (statSync(wal).size - before) / (pageSize + 24);
    const rows = copy.db.prepare('SELECT count(*) FROM memory_entries').pluck().get() as number;
    const cpu = copy.cpu;
    console.log(`| ${copy.variant.name} | ${median(cpu).toFixed(0)} (${Math.min(...cpu).toFixed(0)}–${Math.max(...cpu).toFixed(0)}) | ${median(copy.sys).toFixed(0)} | ${median(copy.wall).toFixed(0)} | ${(frames / commits).toFixed(1)} | ${rows} | ${copy.variant.what} |`);
  }
} finally {
  for (const copy of copies) copy.db.close();
  rmSync(work, { recursive: true, force: true });
}
