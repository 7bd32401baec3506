import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { createFullTextIndex } from '../../storage/search/full-text.js';
import * as fulltextDropped from '../../storage/migrations/0043-memory-fulltext-dropped.js';

/**
 * Migration 0043 drops the database's full-text index of memory entries (docs/decisions/search.md):
 * on a database that still has it, with entries written, changed and deleted through it, nothing
 * stored is lost, nothing of the index is left, and the entries are searched, written, changed
 * and deleted as before.
 */

/** What is left of memory's database full-text index: tables and triggers, or column and index. */
async function fullTextLeft(t: TestApp): Promise<string[]> {
  const db = t.storage.db;
  if (t.storage.dialect === 'sqlite') {
    const rows = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE name LIKE 'memory_entries_fts%' ORDER BY name`.execute(db);
    return rows.rows.map((row) => row.name);
  }
  const columns = await sql<{ name: string }>`SELECT column_name AS name FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'memory_entries' AND column_name = 'search_vector'`.execute(db);
  const indexes = await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes
    WHERE schemaname = current_schema() AND indexname = 'memory_entries_search'`.execute(db);
  return [...columns.rows, ...indexes.rows].map((row) => row.name);
}

describe('an existing database with the full-text index of memory entries', () => {
  it('loses the index and nothing stored; search and writes go on', async () => {
    const t = await createTestApp();
    try {
      const who = await t.createOwner('Index Upgrader');
      const other = await t.createOwner('Other Owner');
      const dialect = t.storage.dialect;
      expect(await fullTextLeft(t)).toEqual([]);
      // The index as migration 0003 made it, kept by its triggers (or generated) through the writes below.
      await createFullTextIndex(t.storage.db as never, dialect, { table: 'memory_entries', rowKey: dialect === 'sqlite' ? 'rid' : 'id', columns: [{ name: 'content', weight: 1 }] });
      expect((await fullTextLeft(t)).length).toBeGreaterThan(0);

      const write = async (token: string, content: string) => {
        const res = await t.request('POST', '/api/v1/memory', { token, body: { content, tags: ['home'] } });
        expect(res.status).toBe(201);
        return res.body.data as { id: string };
      };
      const kept = await write(who.token, 'The boiler is serviced every October');
      const changed = await write(who.token, 'Prefers coffee black');
      const deleted = await write(who.token, 'The spare key is under the blue pot');
      const others = await write(other.token, 'The boiler of another owner');
      expect((await t.request('PATCH', `/api/v1/memory/${changed.id}`, { token: who.token, body: { content: 'Prefers green tea' } })).status).toBe(200);
      expect((await t.request('DELETE', `/api/v1/memory/${deleted.id}`, { token: who.token })).status).toBe(200);
      const before = await sql`SELECT * FROM memory_entries ORDER BY id`.execute(t.storage.db);

      await fulltextDropped.up(t.storage.db as never, { dialect });
      expect(await fullTextLeft(t)).toEqual([]);
      // Every stored column of every row as it was: only the index's own column is gone.
      const after = await sql`SELECT * FROM memory_entries ORDER BY id`.execute(t.storage.db);
      expect(after.rows).toEqual(before.rows.map((row) => Object.fromEntries(Object.entries(row as object).filter(([name]) => name !== 'search_vector'))));
      await t.restart();

      const search = async (token: string, q: string) =>
        ((await t.request('GET', '/api/v1/memory', { token, query: { q } })).body.data as Array<{ id: string }>).map((e) => e.id);
      expect(await search(who.token, 'boiler')).toEqual([kept.id]);
      expect(await search(who.token, 'tea')).toEqual([changed.id]);
      expect(await search(who.token, 'coffee')).toEqual([]);
      expect(await search(who.token, 'key')).toEqual([]);
      expect(await search(other.token, 'boiler')).toEqual([others.id]);

      // Writes after it: created, changed and deleted without the index, and searched at once.
      const added = await write(who.token, 'The boiler pressure should read 1.5 bar');
      expect((await search(who.token, 'boiler')).sort()).toEqual([kept.id, added.id].sort());
      expect((await t.request('PATCH', `/api/v1/memory/${added.id}`, { token: who.token, body: { content: 'The radiators are bled in September' } })).status).toBe(200);
      expect(await search(who.token, 'radiators')).toEqual([added.id]);
      expect((await t.request('DELETE', `/api/v1/memory/${kept.id}`, { token: who.token })).status).toBe(200);
      expect(await search(who.token, 'boiler')).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
