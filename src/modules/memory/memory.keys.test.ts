import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTextKeys, keyHash } from './memory.keys.js';

/**
 * The text keys SQLite's memory keeps in the process (memory.keys.ts), read from a real table:
 * what a load reads, that adds keep a superset, and when keys are dropped and read again.
 */
let db: Kysely<any>;
let unknownWrites: number | undefined;
const writes = { stamp: (tables: readonly string[]) => (tables.length === 0 ? unknownWrites : 0) };

beforeEach(async () => {
  db = new Kysely({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  await db.schema
    .createTable('memory_entries')
    .addColumn('rid', 'integer', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('content_key', 'text')
    .execute();
  unknownWrites = 0;
});

afterEach(async () => {
  await db.destroy();
});

async function insert(owner: string, key: string | null): Promise<number> {
  const row = await db.insertInto('memory_entries').values({ owner_id: owner, content_key: key }).returning('rid').executeTakeFirstOrThrow();
  return Number(row.rid);
}

describe('the text keys kept in the process', () => {
  it('are read from the owner’s rows that hold a key, and from no other owner’s', async () => {
    const a = await insert('own_a', 'v1:a');
    await insert('own_a', null);
    await insert('own_b', 'v1:b');
    const keys = createTextKeys(writes);
    const owner = await keys.load(db, 'own_a');
    expect(owner.candidates('v1:a')).toEqual([a]);
    expect(owner.candidates('v1:b')).toEqual([]);
    expect(keys.size).toBe(1);
  });

  it('keep every row added, even several for one key, and read nothing again while kept', async () => {
    const keys = createTextKeys(writes);
    const owner = await keys.load(db, 'own_a');
    owner.add('v1:a', 7);
    owner.add('v1:a', 9);
    owner.add('v1:a', 9);
    expect(owner.candidates('v1:a')).toEqual([7, 9]);
    // Kept: the table (which holds none of them) is not read again.
    expect((await keys.load(db, 'own_a')).candidates('v1:a')).toEqual([7, 9]);
    expect(keys.size).toBe(2);
  });

  it('are read again once dropped (an import wrote the owner’s rows), or all of them once a write of unknown table happened', async () => {
    const keys = createTextKeys(writes);
    await keys.load(db, 'own_a');
    await keys.load(db, 'own_b');
    const a = await insert('own_a', 'v1:a');
    const b = await insert('own_b', 'v1:b');
    expect((await keys.load(db, 'own_a')).candidates('v1:a')).toEqual([]);
    keys.drop('own_a');
    expect((await keys.load(db, 'own_a')).candidates('v1:a')).toEqual([a]);
    expect((await keys.load(db, 'own_b')).candidates('v1:b')).toEqual([]);
    unknownWrites = 1;
    expect((await keys.load(db, 'own_b')).candidates('v1:b')).toEqual([b]);
    // Changes elsewhere that cannot be seen: nothing is kept from one load to the next.
    unknownWrites = undefined;
    const c = await insert('own_b', 'v1:c');
    expect((await keys.load(db, 'own_b')).candidates('v1:c')).toEqual([c]);
  });

  it('are read again after another process committed to the same file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-keys-'));
    const file = path.join(dir, 'store.db');
    const mine = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(file) }) });
    const other = new Database(file);
    try {
      await mine.schema.createTable('memory_entries').addColumn('rid', 'integer', (c) => c.primaryKey()).addColumn('owner_id', 'text').addColumn('content_key', 'text').execute();
      const keys = createTextKeys(writes);
      expect((await keys.load(mine, 'own_a')).candidates('v1:a')).toEqual([]);
      const rid = Number(other.prepare("insert into memory_entries (owner_id, content_key) values ('own_a', 'v1:a')").run().lastInsertRowid);
      expect((await keys.load(mine, 'own_a')).candidates('v1:a')).toEqual([rid]);
    } finally {
      other.close();
      await mine.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('give up the least recently used owners’ keys beyond the bound, never the owner just read', async () => {
    for (let i = 0; i < 3; i++) await insert('own_a', `v1:a${i}`);
    for (let i = 0; i < 3; i++) await insert('own_b', `v1:b${i}`);
    for (let i = 0; i < 5; i++) await insert('own_c', `v1:c${i}`);
    const keys = createTextKeys(writes, 6);
    await keys.load(db, 'own_a');
    await keys.load(db, 'own_b');
    expect(keys.size).toBe(6);
    // Over the bound: a goes (least recently used), then b; c stays alone, over the bound itself.
    const c = await keys.load(db, 'own_c');
    expect(keys.size).toBe(5);
    expect(c.candidates('v1:c4')).toHaveLength(1);
    // An owner's keys answered before they were given up still answer for the unit that holds them.
    const a = await keys.load(db, 'own_a');
    expect(keys.size).toBe(3);
    a.add('v1:new', 99);
    expect(a.candidates('v1:new')).toEqual([99]);
    expect(keys.size).toBe(4);
  });

  it('hash a key to a small integer, the same for the same key', () => {
    for (const key of ['v1:abc', 'v1t:abc', '', 'x'.repeat(1000)]) {
      const hash = keyHash(key);
      expect(Number.isInteger(hash) && hash >= 0 && hash < 2 ** 30).toBe(true);
      expect(keyHash(key)).toBe(hash);
    }
    expect(keyHash('v1:abc')).not.toBe(keyHash('v1t:abc'));
  });
});
