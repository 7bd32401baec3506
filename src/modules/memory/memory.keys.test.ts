import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTextKeys, keyHash, type TextKeys } from './memory.keys.js';

/**
 * The text keys SQLite's memory keeps in the process (memory.keys.ts), read from a real table:
 * what a load reads, that adds keep a superset, and when keys are dropped and read again.
 */
let db: Kysely<any>;

beforeEach(async () => {
  db = new Kysely({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  await db.schema
    .createTable('memory_entries')
    .addColumn('rid', 'integer', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('content_key', 'text')
    .execute();
});

afterEach(async () => {
  await db.destroy();
});

async function insert(owner: string, key: string | null): Promise<number> {
  const row = await db.insertInto('memory_entries').values({ owner_id: owner, content_key: key }).returning('rid').executeTakeFirstOrThrow();
  return Number(row.rid);
}

/** The owner's keys as a writing transaction of its own loads them (as each group commit's batch does). */
function loadIn(keys: TextKeys, owner: string) {
  return db.transaction().execute((trx) => keys.load(trx, owner));
}

describe('the text keys kept in the process', () => {
  it('are read from the owner’s rows that hold a key, and from no other owner’s', async () => {
    const a = await insert('own_a', 'v1:a');
    await insert('own_a', null);
    await insert('own_b', 'v1:b');
    const keys = createTextKeys();
    const owner = await loadIn(keys, 'own_a');
    expect(owner.candidates('v1:a')).toEqual([a]);
    expect(owner.candidates('v1:b')).toEqual([]);
    expect(keys.size).toBe(1);
  });

  it('keep every row added, even several for one key, and read nothing again while kept', async () => {
    const keys = createTextKeys();
    const owner = await loadIn(keys, 'own_a');
    owner.add('v1:a', 7);
    owner.add('v1:a', 9);
    owner.add('v1:a', 9);
    expect(owner.candidates('v1:a')).toEqual([7, 9]);
    // Kept: the table (which holds none of them) is not read again.
    expect((await loadIn(keys, 'own_a')).candidates('v1:a')).toEqual([7, 9]);
    expect(keys.size).toBe(2);
  });

  it('are read again once dropped (an import wrote the owner’s rows), and all of them once all are dropped', async () => {
    const keys = createTextKeys();
    await loadIn(keys, 'own_a');
    await loadIn(keys, 'own_b');
    const a = await insert('own_a', 'v1:a');
    const b = await insert('own_b', 'v1:b');
    expect((await loadIn(keys, 'own_a')).candidates('v1:a')).toEqual([]);
    keys.drop('own_a');
    expect((await loadIn(keys, 'own_a')).candidates('v1:a')).toEqual([a]);
    expect((await loadIn(keys, 'own_b')).candidates('v1:b')).toEqual([]);
    keys.dropAll();
    expect((await loadIn(keys, 'own_b')).candidates('v1:b')).toEqual([b]);
  });

  it('are read again, in a later transaction, once far more were added or found stale than were read; never within one', async () => {
    const keys = createTextKeys();
    const kept = await insert('own_a', 'v1:kept');
    const first = await db.transaction().execute(async (trx) => {
      const loaded = await keys.load(trx, 'own_a');
      for (let i = 0; i < 1001; i++) loaded.add(`v1:gone${i}`, 100_000 + i);
      // Within the transaction that added them, what it uses stays as it is.
      expect(await keys.load(trx, 'own_a')).toBe(loaded);
      return loaded;
    });
    const again = await loadIn(keys, 'own_a');
    expect(again).not.toBe(first);
    expect(again.candidates('v1:kept')).toEqual([kept]);
    expect(again.candidates('v1:gone0')).toEqual([]);
    expect(keys.size).toBe(1);
    // Below the threshold, kept as it is.
    expect(await loadIn(keys, 'own_a')).toBe(again);
    // Candidates found stale count the same way.
    again.noteStale(1001);
    expect((await loadIn(keys, 'own_a')).candidates('v1:kept')).toEqual([kept]);
    expect(keys.size).toBe(1);
  });

  it('are read again after another process committed to the same file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-keys-'));
    const file = path.join(dir, 'store.db');
    const mine = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(file) }) });
    const other = new Database(file);
    try {
      await mine.schema.createTable('memory_entries').addColumn('rid', 'integer', (c) => c.primaryKey()).addColumn('owner_id', 'text').addColumn('content_key', 'text').execute();
      const keys = createTextKeys();
      const inOwn = (owner: string) => mine.transaction().execute((trx) => keys.load(trx, owner));
      expect((await inOwn('own_a')).candidates('v1:a')).toEqual([]);
      const rid = Number(other.prepare("insert into memory_entries (owner_id, content_key) values ('own_a', 'v1:a')").run().lastInsertRowid);
      expect((await inOwn('own_a')).candidates('v1:a')).toEqual([rid]);
    } finally {
      other.close();
      await mine.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('give up the least recently used owners’ keys beyond the bound, never one the transaction uses', async () => {
    for (let i = 0; i < 3; i++) await insert('own_a', `v1:a${i}`);
    for (let i = 0; i < 3; i++) await insert('own_b', `v1:b${i}`);
    for (let i = 0; i < 5; i++) await insert('own_c', `v1:c${i}`);
    const keys = createTextKeys(6);
    await loadIn(keys, 'own_a');
    await loadIn(keys, 'own_b');
    expect(keys.size).toBe(6);
    // Over the bound: a goes (least recently used), then b; c stays alone, over the bound itself.
    const c = await loadIn(keys, 'own_c');
    expect(keys.size).toBe(5);
    expect(c.candidates('v1:c4')).toHaveLength(1);
    // An owner's keys answered before they were given up still answer for the unit that holds them.
    const a = await loadIn(keys, 'own_a');
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

describe('the bound on kept keys, within one transaction', () => {
  it('never gives up an owner the transaction already uses', async () => {
    for (let i = 0; i < 4; i++) await insert('own_a', `v1:a${i}`);
    for (let i = 0; i < 4; i++) await insert('own_b', `v1:b${i}`);
    const keys = createTextKeys(5);
    await db.transaction().execute(async (trx) => {
      const a = await keys.load(trx, 'own_a');
      await keys.load(trx, 'own_b');
      // Both kept, over the bound, until a later transaction reads another owner.
      expect(keys.size).toBe(8);
      expect(await keys.load(trx, 'own_a')).toBe(a);
    });
    await db.transaction().execute((trx) => keys.load(trx, 'own_b'));
    await insert('own_c', 'v1:c');
    await db.transaction().execute((trx) => keys.load(trx, 'own_c'));
    expect(keys.size).toBeLessThanOrEqual(5);
  });
});
