import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, ENGINE, type Owner, type TestApp } from '../../../test/harness.js';
import { newId } from '../../lib/ids.js';
import { porterStem } from './stemmer.js';
import { isoNow } from '../../lib/time.js';
import { SKILLS_FULL_TEXT } from '../../modules/skills/skills.repo.js';
import { PASSAGE_INDEX } from '../../modules/knowledge/knowledge.repo.js';
import { memoryFullText } from '../../modules/memory/memory.repo.js';
import { type FullTextIndex, type MatchMode } from './full-text.js';
import { searchTerms } from './tokenizer.js';
import { createSearchIndex } from './index-cache.js';
import { buildOwnerIndex, type OwnerIndex } from './owner-index.js';
import { rankInIndex } from './ranker.js';
import { createScanRanking } from './scan.js';
import { tokenize } from './tokenizer.js';

/**
 * The in-memory index (index-cache.ts, owner-index.ts, ranker.ts) against a brute-force reference that scores every row
 * of the owner with FTS5's bm25, on random queries over a seeded catalogue, through the HTTP
 * routes; and, on SQLite, against FTS5's own ranking.
 */

/** mulberry32, so that a failure can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Word families that stem together, prefixes of one another, diacritics, digits and case.
const VOCABULARY = `
  deploy deploying deployed deployment deployments garden gardens gardening gardener café cafe cafés
  connect connected connecting connection connections run running runner runs note notes notebook
  notebooks calendar calendars contract contractor contracts database databases data date dated
  relational rational ration happy happiness happily generalization general generals test tests
  testing tester Résumé resume resumed naïve naive 2024 v2 x1 alpha beta gamma delta sky skies
  organize organized organization organizer market marketing marketplace trip tripod triple
`
  .trim()
  .split(/\s+/);

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function words(random: () => number, count: number): string {
  return Array.from({ length: count }, () => pick(random, VOCABULARY)).join(' ');
}

interface Hit {
  id: string | number;
  score: number;
}

/** Scores every row: the definition the index must reproduce. */
function reference(
  rows: Array<Record<string, unknown>>,
  index: FullTextIndex,
  q: string,
  mode: MatchMode,
  limit: number,
  accept: (row: Record<string, unknown>) => boolean = () => true,
): Array<string | number> {
  return referenceHits(rows, index, q, mode, limit, accept).map((h) => h.id);
}

/** The reference's best `limit` hits with their scores. */
function referenceHits(
  rows: Array<Record<string, unknown>>,
  index: FullTextIndex,
  q: string,
  mode: MatchMode,
  limit: number,
  accept: (row: Record<string, unknown>) => boolean = () => true,
): Hit[] {
  return rankCorpus(referenceCorpus(rows, index), q, mode, limit, accept);
}

/** The reference's work per document, done once for a corpus: its stems by column and its length. */
function referenceCorpus<R extends Record<string, unknown>>(rows: R[], index: FullTextIndex) {
  const docs = rows.map((row) => {
    const columns = index.columns.map((c) => ({ weight: c.weight, stems: tokenize(String(row[c.name] ?? '')).map(porterStem) }));
    return { row, columns, length: columns.reduce((n, c) => n + c.stems.length, 0) };
  });
  return { docs, avg: docs.reduce((n, d) => n + d.length, 0) / docs.length, b: index.lengthNormalization ?? 0.75 };
}

/** bm25 of every document of the corpus (as the index's Porter stems and prefixes match), best `limit` first. */
function rankCorpus<R extends Record<string, unknown>>(
  { docs, avg, b }: ReturnType<typeof referenceCorpus<R>>,
  q: string,
  mode: MatchMode,
  limit: number,
  accept: (row: R) => boolean,
): Hit[] {
  const terms = searchTerms(q).map((t) => porterStem(tokenize(t)[0]!));
  const freqs = docs.map((d) => terms.map((t) => d.columns.reduce((f, c) => f + c.weight * c.stems.filter((s) => s.startsWith(t)).length, 0)));
  const idfs = terms.map((_, i) => {
    const hits = freqs.filter((f) => f[i]! > 0).length;
    const idf = Math.log((docs.length - hits + 0.5) / (hits + 0.5));
    return idf <= 0 ? 1e-6 : idf;
  });
  const hits: Hit[] = [];
  docs.forEach((d, di) => {
    const f = freqs[di]!;
    const matches = mode === 'all' ? f.every((x) => x > 0) : f.some((x) => x > 0);
    if (!matches || !accept(d.row)) return;
    let score = 0;
    f.forEach((x, i) => {
      if (x > 0) score += idfs[i]! * ((x * (1.2 + 1)) / (x + 1.2 * (1 - b + (b * d.length) / avg)));
    });
    hits.push({ id: d.row.id as string | number, score });
  });
  hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return hits.slice(0, limit);
}

function randomQuery(random: () => number): string {
  const n = 1 + Math.floor(random() * 3);
  return Array.from({ length: n }, () => {
    const word = pick(random, VOCABULARY);
    // Now and then a prefix, as a user types it.
    return random() < 0.3 && word.length > 4 ? word.slice(0, 3 + Math.floor(random() * (word.length - 3))) : word;
  }).join(' ');
}

const CATEGORIES = ['Ops', 'Home', 'Work'];

async function seedSkills(t: TestApp, owner: Owner, count: number, random: () => number): Promise<void> {
  const now = isoNow();
  const rows = Array.from({ length: count }, (_, i) => {
    const slug = `s-${owner.id.slice(-6)}-${i}`;
    const category = pick(random, CATEGORIES);
    return {
      owner_id: owner.id,
      slug,
      slug_key: slug.toLowerCase(),
      name: random() < 0.3 ? `${pick(random, VOCABULARY)}-${i}` : slug,
      description: words(random, 3 + Math.floor(random() * 12)),
      category,
      category_key: category.toLowerCase(),
      script_content: '---\nname: x\n---\n',
      active: 0,
      origin: '{"type":"created"}',
      created_at: now,
      updated_at: now,
    };
  });
  for (let i = 0; i < rows.length; i += 100) await t.storage.db.insertInto('skills').values(rows.slice(i, i + 100)).execute();
}

async function skillRows(t: TestApp, owner: Owner): Promise<Array<Record<string, unknown>>> {
  const rows = await t.storage.db
    .selectFrom('skills')
    .select(['id', 'name', 'description', 'category', 'category_key'])
    .where('owner_id', '=', owner.id)
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

async function searchSkills(t: TestApp, owner: Owner, q: string, extra = '', match: MatchMode = 'all'): Promise<number[]> {
  const res = await t.request('GET', `/api/v1/skills?q=${encodeURIComponent(q)}&limit=20&match=${match}${extra}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.data.map((s: { id: number }) => s.id);
}

describe('in-memory search against a full ranking of every row', () => {
  let t: TestApp;
  let alice: Owner;
  let bob: Owner;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.createOwner('Alice');
    bob = await t.createOwner('Bob');
    await seedSkills(t, alice, 600, seeded(1));
    await seedSkills(t, bob, 200, seeded(2));
  });
  afterAll(async () => t.close());

  it('answers the same skills in the same order as the reference, on random queries, by every word and by any', async () => {
    const rows = await skillRows(t, alice);
    const random = seeded(3);
    let nonEmpty = 0;
    for (let i = 0; i < 150; i++) {
      const q = randomQuery(random);
      const mode: MatchMode = i % 3 === 2 ? 'any' : 'all';
      const expected = reference(rows, SKILLS_FULL_TEXT, q, mode, 20);
      if (expected.length > 0) nonEmpty++;
      expect(await searchSkills(t, alice, q, '', mode), `${q} (${mode})`).toEqual(expected);
    }
    // The queries are not all empty answers, which would prove nothing.
    expect(nonEmpty).toBeGreaterThan(50);
  });

  it('applies the category filter before the limit', async () => {
    const rows = await skillRows(t, alice);
    const random = seeded(4);
    for (let i = 0; i < 30; i++) {
      const q = randomQuery(random);
      const expected = reference(rows, SKILLS_FULL_TEXT, q, 'all', 20, (row) => row.category_key === 'home');
      expect(await searchSkills(t, alice, q, '&category=Home'), q).toEqual(expected);
    }
  });

  it('answers suggestions (any word) as the reference does', async () => {
    const rows = await skillRows(t, alice);
    const random = seeded(5);
    for (let i = 0; i < 60; i++) {
      const q = randomQuery(random);
      const res = await t.request('GET', `/api/v1/skills/suggestions?q=${encodeURIComponent(q)}`, { token: alice.token });
      expect(res.status).toBe(200);
      expect(res.body.data.map((s: { id: number }) => s.id), q).toEqual(reference(rows, SKILLS_FULL_TEXT, q, 'any', 10));
    }
  });

  it('ranks any of several frequent words (each in about a third of the skills) as the reference does, filtered or not', async () => {
    // Words too frequent for MaxScore to skip: the index answers them from their bitsets.
    const frequent = ['quartz', 'basalt', 'granite', 'marble', 'obsidian', 'pumice'];
    const rocks = await t.createOwner('Rocks');
    const random = seeded(7);
    const now = isoNow();
    const rows = Array.from({ length: 900 }, (_, i) => {
      const slug = `rock-${i}`;
      const category = pick(random, CATEGORIES);
      const held = frequent.flatMap((word) => (random() < 1 / 3 ? (random() < 0.1 ? [word, word] : [word]) : []));
      return {
        owner_id: rocks.id,
        slug,
        slug_key: slug,
        name: slug,
        description: [...held, words(random, Math.floor(random() * 6))].join(' '),
        category,
        category_key: category.toLowerCase(),
        script_content: '',
        active: 0,
        origin: '{"type":"created"}',
        created_at: now,
        updated_at: now,
      };
    });
    for (let i = 0; i < rows.length; i += 100) await t.storage.db.insertInto('skills').values(rows.slice(i, i + 100)).execute();
    // A write through the API, which the index sees (the rows above went around it).
    expect((await t.request('POST', '/api/v1/skills', { token: rocks.token, body: { name: 'rock-seen', description: 'granite' } })).status).toBe(201);
    const all = await skillRows(t, rocks);
    for (let i = 0; i < 60; i++) {
      const q = Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
        const word = pick(random, frequent);
        return random() < 0.3 ? word.slice(0, 4) : word;
      }).join(' ');
      const home = i % 3 === 0;
      const expected = reference(all, SKILLS_FULL_TEXT, q, 'any', 20, home ? (row) => row.category_key === 'home' : undefined);
      expect(await searchSkills(t, rocks, q, home ? '&category=Home' : '', 'any'), `${q}${home ? ' (Home)' : ''}`).toEqual(expected);
    }
  });

  it("never considers another owner's skills", async () => {
    const bobIds = new Set((await skillRows(t, bob)).map((r) => r.id));
    const random = seeded(6);
    for (let i = 0; i < 30; i++) {
      for (const id of await searchSkills(t, alice, randomQuery(random))) expect(bobIds.has(id)).toBe(false);
    }
  });

  it('sees creations, updates and deletes at once', async () => {
    const created = await t.request('POST', '/api/v1/skills', {
      token: alice.token,
      body: { name: 'zebrafish-care', description: 'Feeding the zebrafish', category: 'Home' },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as number;
    expect(await searchSkills(t, alice, 'zebrafish')).toEqual([id]);
    const patched = await t.request('PUT', `/api/v1/skills/${id}`, { token: alice.token, body: { description: 'Walking the quokka' } });
    expect(patched.status).toBe(200);
    expect(await searchSkills(t, alice, 'quokka')).toEqual([id]);
    expect(await searchSkills(t, alice, 'feeding')).toEqual([]);
    expect((await t.request('DELETE', `/api/v1/skills/${id}`, { token: alice.token })).status).toBe(200);
    expect(await searchSkills(t, alice, 'quokka')).toEqual([]);
    expect(await searchSkills(t, bob, 'quokka')).toEqual([]);
  });

  it('sees a write made by another node of the same database', async () => {
    // Another process writing the SQLite file is not a supported setup; PostgreSQL nodes share one database.
    if (ENGINE !== 'postgres') return;
    expect(await searchSkills(t, alice, 'okapi')).toEqual([]);
    const other = await t.openStorage();
    /** A skill written by the other node, straight into the database. */
    const insertSkill = (slug: string, description: string) => {
      const now = isoNow();
      return other.db
        .insertInto('skills')
        .values({
          owner_id: alice.id, slug, slug_key: slug, name: slug, description, category: 'Home',
          category_key: 'home', script_content: '', active: 0, origin: '{"type":"created"}', created_at: now, updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    };
    try {
      const inserted = await insertSkill('okapi', 'Okapi facts');
      // The answer cache in front of the index hears of the other node's write through the change
      // feed (storage/change-feed.ts), a few milliseconds later; the index itself is current at once.
      await vi.waitFor(async () => expect(await searchSkills(t, alice, 'okapi')).toEqual([Number(inserted.id)]), { timeout: 5_000 });
      await other.db.deleteFrom('skills').where('id', '=', inserted.id).execute();
      await vi.waitFor(async () => expect(await searchSkills(t, alice, 'okapi')).toEqual([]), { timeout: 5_000 });
      // Searches in flight share generation reads; one sent after a commit still sees it.
      const busy = Array.from({ length: 30 }, () => searchSkills(t, alice, 'okapi'));
      const again = await insertSkill('okapi-2', 'More okapi facts');
      await Promise.all(busy);
      await vi.waitFor(async () => expect(await searchSkills(t, alice, 'okapi')).toEqual([Number(again.id)]), { timeout: 5_000 });
      // The index, asked directly, sees the second node's write without waiting for any notice.
      const index = createSearchIndex<number>({ db: t.storage.db, dialect: t.storage.dialect, index: SKILLS_FULL_TEXT, writes: t.storage.writes, pageSize: 100, maxCost: 1_000_000, integerIds: true });
      const third = await insertSkill('okapi-3', 'Okapi facts again');
      const direct = await index.search(alice.id, { q: 'okapi', limit: 10, mode: 'all' });
      expect(direct?.map((hit) => hit.id).sort()).toEqual([Number(again.id), Number(third.id)].sort());
    } finally {
      await other.close();
    }
  });

  it('ranks an owner whose index would be too large by reading its rows, as the reference does', async () => {
    const index = createSearchIndex<number>({
      db: t.storage.db,
      dialect: t.storage.dialect,
      index: SKILLS_FULL_TEXT,
      writes: t.storage.writes,
      pageSize: 50,
      maxCost: 100,
      integerIds: true,
    });
    for (const mode of ['all', 'any'] as const) {
      const scanned = await index.search(alice.id, { q: 'deploy garden', limit: 5, mode });
      expect(scanned?.map((h) => h.id)).toEqual(reference(await skillRows(t, alice), SKILLS_FULL_TEXT, 'deploy garden', mode, 5));
    }
    // Bob's few skills fit a larger budget.
    const roomy = createSearchIndex<number>({ db: t.storage.db, dialect: t.storage.dialect, index: SKILLS_FULL_TEXT, writes: t.storage.writes, pageSize: 50, maxCost: 100_000, integerIds: true });
    const hits = await roomy.search(bob.id, { q: 'deploy', limit: 5, mode: 'all' });
    expect(hits?.map((h) => h.id)).toEqual(reference(await skillRows(t, bob), SKILLS_FULL_TEXT, 'deploy', 'all', 5));
  });
});

describe('in-memory search of memory and the knowledge base', () => {
  let t: TestApp;
  let owner: Owner;
  // The repositories' own definitions (memory weighs lengths by its own b): the reference ranks as the routes do.
  const MEMORY = memoryFullText(ENGINE);
  const KNOWLEDGE: FullTextIndex = { table: 'kb_documents', rowKey: 'id', columns: [{ name: 'title', weight: 4 }, { name: 'content', weight: 1 }] };
  const PASSAGES = PASSAGE_INDEX;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.createOwner();
    const random = seeded(7);
    const now = isoNow();
    const memory = Array.from({ length: 300 }, () => ({ id: newId('mem'), owner_id: owner.id, content: words(random, 4 + Math.floor(random() * 20)), created_at: now, updated_at: now }));
    await t.storage.db.insertInto('memory_entries').values(memory).execute();
    for (let i = 0; i < 60; i++) {
      // Some long enough to be cut into several passages.
      const content = words(random, 50 + Math.floor(random() * (i % 4 === 0 ? 900 : 200)));
      const res = await t.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: `${words(random, 2)} ${i}`, content } });
      expect(res.status).toBe(200);
    }
  });
  afterAll(async () => t.close());

  it('ranks memory entries as the reference does, in both modes', async () => {
    const rows = await t.storage.db.selectFrom('memory_entries').select(['id', 'content']).where('owner_id', '=', owner.id).execute();
    const random = seeded(8);
    for (let i = 0; i < 60; i++) {
      const q = randomQuery(random);
      const mode = i % 2 === 0 ? 'all' : 'any';
      const res = await t.request('GET', `/api/v1/memory?q=${encodeURIComponent(q)}&limit=15&match=${mode}`, { token: owner.token });
      expect(res.status).toBe(200);
      expect(res.body.data.map((e: { id: string }) => e.id), q).toEqual(reference(rows, MEMORY, q, mode, 15));
    }
  });

  it('ranks knowledge documents and passages as the reference does, in both modes', async () => {
    const rows = await t.storage.db.selectFrom('kb_documents').select(['id', 'title', 'content']).where('owner_id', '=', owner.id).execute();
    const passages = await t.storage.db.selectFrom('kb_passages').select(['id', 'document_id', 'title', 'heading_path', 'content']).where('owner_id', '=', owner.id).execute();
    expect(passages.length).toBeGreaterThan(rows.length);
    const documentOf = new Map(passages.map((p) => [p.id, p.document_id]));
    /** Documents in the order of their best passage. */
    const byBestPassage = (q: string, limit: number) => [...new Set(reference(passages, PASSAGES, q, 'any', passages.length).map((id) => documentOf.get(String(id))))].slice(0, limit);
    const random = seeded(9);
    for (let i = 0; i < 40; i++) {
      const q = randomQuery(random);
      const res = await t.request('GET', `/api/v1/brain/knowledge-base?q=${encodeURIComponent(q)}&limit=10&match=all`, { token: owner.token });
      expect(res.status).toBe(200);
      expect(res.body.data.map((d: { id: string }) => d.id), q).toEqual(reference(rows, KNOWLEDGE, q, 'all', 10));
      const ranked = await t.request('GET', `/api/v1/brain/knowledge-base?q=${encodeURIComponent(q)}&limit=10`, { token: owner.token });
      expect(ranked.body.data.map((d: { id: string }) => d.id), q).toEqual(byBestPassage(q, 10));
      const any = await t.container.knowledge.searchPassages(owner.id, q, { limit: 8, mode: 'any' });
      expect(any.map((d) => d.id), q).toEqual(reference(passages, PASSAGES, q, 'any', 8));
    }
    // Three searches a query, each checked against a reference that scores every document.
  }, 60_000);
});

describe.runIf(ENGINE === 'sqlite')("the same order as SQLite's own bm25", () => {
  let t: TestApp;
  let owner: Owner;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.createOwner();
    await seedSkills(t, owner, 500, seeded(10));
  });
  afterAll(async () => t.close());

  it('agrees with FTS5 (porter, prefix queries, bm25 with the column weights) on random queries', async () => {
    const random = seeded(11);
    let nonEmpty = 0;
    for (let i = 0; i < 150; i++) {
      const q = randomQuery(random);
      const mode: MatchMode = i % 3 === 2 ? 'any' : 'all';
      const match = searchTerms(q)
        .map((w) => `"${w}"*`)
        .join(mode === 'all' ? ' ' : ' OR ');
      const fts = await sql<{ id: number }>`
        SELECT t.id AS id FROM skills_fts JOIN skills t ON t.id = skills_fts.rowid
        WHERE skills_fts MATCH ${match} AND t.owner_id = ${owner.id}
        ORDER BY bm25(skills_fts, 10.0, 4.0, 2.0), t.id LIMIT 20`.execute(t.storage.db);
      if (fts.rows.length > 0) nonEmpty++;
      expect(await searchSkills(t, owner, q, '', mode), `${q} (${mode})`).toEqual(fts.rows.map((r) => Number(r.id)));
    }
    expect(nonEmpty).toBeGreaterThan(50);
  });
});

describe('words frequent enough to intersect as bitsets', () => {
  it.each([
    ['once in one column of each document holding it (one frequency for all)', false],
    ['in names as well for some documents (frequencies differ)', true],
  ])('rank as the reference does when every word of an all-words query is in a third of the documents, %s', (_, inNames) => {
    // As the bench's catalogue: each of six words in about a third of 3,000 descriptions, so
    // each has a bitset and a query of two or three of them is answered by intersecting them.
    const random = seeded(21);
    const frequent = ['calendar', 'contract', 'notebook', 'password', 'keyboard', 'umbrella'];
    const filler = ['alpha', 'beta', 'gamma', 'delta', 'sky', 'trip', 'market', 'happy'];
    const rows = Array.from({ length: 3_000 }, (_, i) => ({
      id: i + 1,
      name: `${pick(random, inNames && random() < 0.1 ? frequent : filler)}-${i}`,
      description: [...Array.from({ length: 2 + Math.floor(random() * 6) }, () => pick(random, filler)), ...frequent.filter(() => random() < 1 / 3)].join(' '),
      category: pick(random, filler),
    }));
    const owner = buildOwnerIndex<number>(rows, SKILLS_FULL_TEXT, [], 1)!;
    // The walk takes a word's one frequency without reading it per document only when it is one.
    for (const word of frequent) expect(owner.postings.get(porterStem(word))!.uniform === undefined, word).toBe(inNames);
    let intersected = 0;
    for (let i = 0; i < 60; i++) {
      const words = frequent.filter(() => random() < 0.5).slice(0, 3);
      if (words.length < 2) continue;
      const q = words.map((w) => (random() < 0.5 ? w.slice(0, 5) : w)).join(' ');
      intersected++;
      for (const limit of [1, 20]) {
        const hits = rankInIndex(owner, searchTerms(q), 'all', limit, () => true)!;
        expect(hits.map((h) => h.id), q).toEqual(reference(rows, SKILLS_FULL_TEXT, q, 'all', limit));
      }
    }
    expect(intersected).toBeGreaterThan(20);
  });
});

describe('the top k of any word, against a ranking of every document', () => {
  const index: FullTextIndex = { table: 'notes', rowKey: 'id', columns: [{ name: 'title', weight: 3 }, { name: 'body', weight: 1 }] };
  // A type, not an interface: rows are passed to buildOwnerIndex as records.
  type Note = {
    id: string;
    title: string;
    body: string;
    group: number;
  };

  /** Scores every note for any word of `q` (the reference), with the work per note done once per corpus. */
  function everyDocument(rows: Note[]): (q: string, limit: number, accept: (row: Note) => boolean, mode?: MatchMode) => Hit[] {
    const corpus = referenceCorpus(rows, index);
    return (q, limit, accept, mode = 'any') => rankCorpus(corpus, q, mode, limit, accept);
  }

  /** The index's answers for `q`, filtered and not, at several limits, against the reference's: ids and scores. */
  function expectSameAnswers(owner: OwnerIndex<string>, expected: ReturnType<typeof everyDocument>, q: string): void {
    const group = owner.attributes.get('group')!;
    // The reference's ranking once per filter: a smaller limit answers its first hits.
    const best = expected(q, 200, () => true);
    const bestFiltered = expected(q, 200, (row) => row.group !== 1);
    for (const limit of [1, 7, 20, 200]) {
      const all = rankInIndex(owner, searchTerms(q), 'any', limit, () => true)!;
      expect(all.map((h) => ({ id: h.id, score: h.rank })), `${q} (limit ${limit})`).toEqual(best.slice(0, limit));
      const filtered = rankInIndex(owner, searchTerms(q), 'any', limit, (slot) => group[slot] !== '1')!;
      expect(filtered.map((h) => ({ id: h.id, score: h.rank })), `${q} (limit ${limit}, filtered)`).toEqual(bestFiltered.slice(0, limit));
    }
    // Every word, from the same resolved lists (a prefix of several stems is merged once and kept).
    const every = rankInIndex(owner, searchTerms(q), 'all', 20, () => true)!;
    expect(every.map((h) => ({ id: h.id, score: h.rank })), `${q} (all)`).toEqual(expected(q, 20, () => true, 'all'));
  }

  it('answers the same documents with the same scores, on random corpora mixing rare and frequent words', () => {
    const random = seeded(33);
    let fewPostings = 0;
    let manyPostings = 0;
    for (let corpus = 0; corpus < 4; corpus++) {
      // Word i is drawn with a weight falling as 1/(i+1): a few words in most documents, most in a few.
      const weights = VOCABULARY.map((_, i) => 1 / (((i + corpus * 7) % VOCABULARY.length) + 1));
      const total = weights.reduce((a, b) => a + b, 0);
      const draw = () => {
        let r = random() * total;
        for (let i = 0; i < weights.length; i++) if ((r -= weights[i]!) <= 0) return VOCABULARY[i]!;
        return VOCABULARY[0]!;
      };
      const size = 200 + Math.floor(random() * 600);
      const rows: Note[] = Array.from({ length: size }, (_, i) => ({
        id: `n${String(i).padStart(5, '0')}`,
        title: Array.from({ length: Math.floor(random() * 3) }, draw).join(' '),
        body: Array.from({ length: 1 + Math.floor(random() * 40) }, draw).join(' '),
        group: Math.floor(random() * 3),
      }));
      const owner = buildOwnerIndex<string>(rows, index, ['group'], 1)!;
      const expected = everyDocument(rows);
      for (let i = 0; i < 30; i++) {
        const q = Array.from({ length: 1 + Math.floor(random() * 10) }, () => {
          const word = random() < 0.5 ? draw() : pick(random, VOCABULARY);
          return random() < 0.2 && word.length > 4 ? word.slice(0, 3 + Math.floor(random() * (word.length - 3))) : word;
        }).join(' ');
        const stems = searchTerms(q).map((t) => porterStem(tokenize(t)[0]!));
        const postings = stems.reduce((n, stem) => n + owner.words.filter((w) => w.startsWith(stem)).reduce((m, w) => m + owner.postings.get(w)!.slots.length, 0), 0);
        if (postings <= 2 * size) fewPostings++;
        else manyPostings++;
        expectSameAnswers(owner, expected, q);
      }
    }
    // Both ways of ranking were taken: the sums over few postings and the walks over many.
    expect(fewPostings).toBeGreaterThan(10);
    expect(manyPostings).toBeGreaterThan(10);
  });

  it("weighs lengths by the index's own b: the reference's order and scores, and the scan's exact doubles", () => {
    const random = seeded(35);
    for (const b of [0, 0.3, 0.5, 0.75]) {
      const weighed: FullTextIndex = { ...index, lengthNormalization: b };
      const rows: Note[] = Array.from({ length: 400 }, (_, i) => ({
        id: `n${String(i).padStart(5, '0')}`,
        title: words(random, Math.floor(random() * 3)),
        body: words(random, 1 + Math.floor(random() * 60)),
        group: 0,
      }));
      const owner = buildOwnerIndex<string>(rows, weighed, ['group'], 1)!;
      const corpus = referenceCorpus(rows, weighed);
      for (let i = 0; i < 25; i++) {
        const q = randomQuery(random);
        for (const mode of ['any', 'all'] as const) {
          const expected = rankCorpus(corpus, q, mode, 20, () => true);
          const hits = rankInIndex(owner, searchTerms(q), mode, 20, () => true)!;
          // The same documents in the same order; the scores equal to rounding (the index moves
          // each length once instead of weighing it in every term).
          expect(hits.map((h) => h.id), `${q} (b ${b}, ${mode})`).toEqual(expected.map((h) => h.id));
          hits.forEach((h, k) => expect(h.rank).toBeCloseTo(expected[k]!.score, 9));
          const scan = createScanRanking<string>(weighed, searchTerms(q), mode, 20, []);
          for (const row of rows) scan.add(row);
          expect(scan.finish()!.map((h) => ({ id: h.id, rank: h.rank })), `${q} (b ${b}, ${mode}, scan)`).toEqual(hits.map((h) => ({ id: h.id, rank: h.rank })));
        }
      }
    }
  });

  it('answers the same documents with the same scores when every word of the query is frequent (by pattern up to six words, more by bitsets)', () => {
    // As the bench's common-word row: words each in about a third of the documents, so each has
    // a bitset, and a query of some of them is ranked 32 documents at a time. Lengths in a few
    // values (many ties broken by id), words once in the body of most corpora (one frequency for
    // all: `uniform`) and now and then twice or in the title in others.
    const random = seeded(51);
    const frequent = ['quartz', 'basalt', 'granite', 'marble', 'obsidian', 'pumice', 'gneiss', 'schist', 'slate'];
    const filler = ['alpha', 'beta', 'gamma', 'delta', 'sky', 'trip', 'market', 'happy'];
    let byPattern = 0;
    let byBits = 0;
    for (let corpus = 0; corpus < 6; corpus++) {
      const varied = corpus % 2 === 1;
      const size = 300 + Math.floor(random() * 900);
      const rows: Note[] = Array.from({ length: size }, (_, i) => ({
        id: `n${String(i).padStart(5, '0')}`,
        title: varied && random() < 0.1 ? pick(random, frequent) : pick(random, filler),
        body: [
          ...Array.from({ length: 2 + Math.floor(random() * (corpus < 2 ? 2 : 6)) }, () => pick(random, filler)),
          ...frequent.flatMap((word) => (random() < 1 / 3 ? (varied && random() < 0.1 ? [word, word] : [word]) : [])),
        ].join(' '),
        group: Math.floor(random() * 3),
      }));
      const owner = buildOwnerIndex<string>(rows, index, ['group'], 1)!;
      for (const word of frequent) expect(owner.postings.get(porterStem(word))!.bits, word).toBeDefined();
      const expected = everyDocument(rows);
      for (let i = 0; i < 25; i++) {
        const words = 1 + Math.floor(random() * frequent.length);
        const q = Array.from({ length: words }, () => {
          const word = pick(random, frequent);
          return random() < 0.3 ? word.slice(0, 4) : word;
        }).join(' ');
        if (new Set(searchTerms(q)).size <= 6) byPattern++;
        else byBits++;
        expectSameAnswers(owner, expected, q);
      }
    }
    expect(byPattern).toBeGreaterThan(50);
    expect(byBits).toBeGreaterThan(10);
  });
});
