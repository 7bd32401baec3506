import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import { pgTsQueryText, searchRanked, sqliteMatchExpression, type FullTextIndex } from './full-text.js';
import { queryTerms } from './tokenizer.js';

// The knowledge base's documents, which keep a database full-text index (migration 0003); their
// titles here are words no query below looks for.
const DOCUMENTS: FullTextIndex = {
  table: 'kb_documents',
  rowKey: 'rid',
  columns: [
    { name: 'title', weight: 4 },
    { name: 'content', weight: 1 },
  ],
};

describe('query parsing', () => {
  it('keeps words only, so search operators in input are inert', () => {
    expect(queryTerms('  Hello, "world" NEAR(x) -- AND ü ')).toEqual(['hello', 'world', 'near', 'x', 'and', 'ü']);
    expect(sqliteMatchExpression(['a', 'b'], 'all')).toBe('"a"* "b"*');
    expect(sqliteMatchExpression(['a', 'b'], 'any')).toBe('"a"* OR "b"*');
    expect(pgTsQueryText(['a', 'b'], 'all')).toBe("'a':* & 'b':*");
    expect(queryTerms('!!!')).toEqual([]);
  });
});

describe('searchRanked on the configured engine', () => {
  let t: TestApp;
  let ownerA: string;
  let ownerB: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp();
    ownerA = (await t.createOwner()).id;
    ownerB = (await t.createOwner()).id;
    const rows: Array<[string, string, string]> = [
      ['garden', ownerA, 'I planted tomatoes in the garden'],
      ['gardening', ownerA, 'Gardening tips: water tomatoes early, tomatoes love sun'],
      ['coffee', ownerA, 'Prefers coffee black, no sugar'],
      ['other', ownerB, 'Owner B also grows tomatoes in a garden'],
    ];
    for (const [i, [key, owner, content]] of rows.entries()) {
      ids[key] = newId('doc');
      const now = isoNow();
      await t.storage.db
        .insertInto('kb_documents')
        .values({ id: ids[key]!, owner_id: owner, title: `Note ${i}`, content, source: 'text', size_bytes: content.length, created_at: now, updated_at: now })
        .execute();
    }
  });
  afterAll(async () => t.close());

  const search = (ownerId: string, q: string, mode: 'all' | 'any' = 'all') =>
    searchRanked<string>(t.storage.db, t.storage.dialect, DOCUMENTS, { ownerId, q, limit: 10, mode });

  it('finds stemmed and prefix matches of one owner only, best first', async () => {
    const hits = await search(ownerA, 'tomato');
    expect(hits.map((h) => h.id).sort()).toEqual([ids.garden, ids.gardening].sort());
    expect(hits[0]!.id).toBe(ids.gardening); // two mentions rank above one
    expect(hits[0]!.rank).toBeGreaterThanOrEqual(hits[1]!.rank);
  });

  it('needs every word in all mode and any word in any mode', async () => {
    expect((await search(ownerA, 'tomatoes coffee')).length).toBe(0);
    expect((await search(ownerA, 'tomatoes coffee', 'any')).length).toBe(3);
  });

  it('follows updates and deletes', async () => {
    await t.storage.db.updateTable('kb_documents').set({ content: 'Prefers tea now' }).where('id', '=', ids.coffee!).execute();
    expect(await search(ownerA, 'coffee')).toEqual([]);
    expect((await search(ownerA, 'tea')).map((h) => h.id)).toEqual([ids.coffee]);
    await t.storage.db.deleteFrom('kb_documents').where('id', '=', ids.coffee!).execute();
    expect(await search(ownerA, 'tea')).toEqual([]);
  });

  it('answers nothing for a query without words, and survives quotes and operators', async () => {
    expect(await search(ownerA, '"*"')).toEqual([]);
    expect((await search(ownerA, 'garden" OR "x')).length).toBeGreaterThanOrEqual(0);
    expect((await search(ownerB, 'tomatoes')).map((h) => h.id)).toEqual([ids.other]);
  });
});
