import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUERY_TERMS, searchTerms } from '../src/storage/search/tokenizer.js';
import { createTestApp, expectError, type Owner, type TestApp } from './harness.js';
import { sameTextForm } from '../src/lib/same-text.js';

/**
 * Ranked search over any word (memory, knowledge base, their MCP tools), on both engines: a
 * question in plain language finds what shares a content word with it, best first; match=all
 * keeps the strict filter; and an owner searched through the in-memory index and one searched
 * by reading its rows (SEARCH_INDEX_PERCENT=0, as an owner beyond the index's bound is) get the
 * same answers in the same order.
 */

let t: TestApp;
/** The same data, every owner beyond the index's bound: searched by reading the rows. */
let scan: TestApp;

beforeAll(async () => {
  [t, scan] = await Promise.all([createTestApp(), createTestApp({ config: { searchIndexPercent: 0 } })]);
});
afterAll(async () => Promise.all([t?.close(), scan?.close()]));

async function remember(app: TestApp, owner: Owner, content: string): Promise<{ id: string }> {
  const res = await app.request('POST', '/api/v1/memory', { token: owner.token, body: { content } });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

async function document(app: TestApp, owner: Owner, title: string, content: string): Promise<void> {
  const res = await app.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title, content } });
  expect(res.status, res.text).toBe(200);
}

function contents(res: { body: { data: Array<{ content: string }> } }): string[] {
  return res.body.data.map((e) => e.content);
}

describe('the words of a query', () => {
  it('are cut as documents are, each once, without English stop words', () => {
    expect(searchTerms('Is my daughter Emma allergic to Peanuts? Emma!')).toEqual(['daughter', 'emma', 'allergic', 'peanuts']);
    expect(searchTerms("Where's the Café?")).toEqual(['cafe']);
    // Search syntax is text: quotes, operators and column filters are only words or nothing.
    expect(searchTerms('"kubernetes" OR NEAR(x) -- content:secret*')).toEqual(['kubernetes', 'near', 'x', 'content', 'secret']);
  });

  it('keep the stop words of a query that has nothing else', () => {
    expect(searchTerms('Who are you?')).toEqual(['who', 'are', 'you']);
    expect(searchTerms('?! …')).toEqual([]);
  });

  it('are bounded in number and in the characters read', () => {
    const many = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ');
    expect(searchTerms(many)).toHaveLength(MAX_QUERY_TERMS);
    expect(searchTerms('x'.repeat(1_000_000)).join('').length).toBeLessThanOrEqual(1_000);
    // A surrogate pair cut at the bound leaves no broken word.
    expect(() => searchTerms(`${'a'.repeat(999)}😀 b`)).not.toThrow();
  });
});

describe('ranked search over any word', () => {
  let owner: Owner;
  const notes = {
    allergy: 'My daughter Emma is allergic to peanuts',
    seats: 'I prefer aisle seats on flights',
    dentist: 'My dentist is Dr. Patel, every six months',
    school: 'Emma starts school in September',
    market: 'Peanuts and olives from the Saturday market',
    who: 'Who are you to say so',
  };

  beforeAll(async () => {
    owner = await t.createOwner('Ranked Searcher');
    for (const content of Object.values(notes)) await remember(t, owner, content);
    await document(t, owner, 'Flights', 'Aisle seats, never the middle. Emma sits by the window.');
    await document(t, owner, 'Allergies', 'Emma: peanuts. Keep an epipen in the bag.');
    await document(t, owner, 'Garden', 'Tomatoes in May, peas in March.');
  });

  const search = (q: string, extra: Record<string, string | number> = {}) =>
    t.request('GET', '/api/v1/memory', { token: owner.token, query: { q, ...extra } });

  it('ranks entries matching more of the words first', async () => {
    const res = await search('Is Emma allergic to anything?');
    expect(res.status).toBe(200);
    expect(contents(res)).toEqual([notes.allergy, notes.school]);
    const peanuts = await search('peanut allergy in the family');
    // "peanut" prefixes "peanut" (both stems); "allergy" stems to "allergi", which "allergic" ("allerg") does not start with.
    expect(contents(peanuts).sort()).toEqual([notes.allergy, notes.market].sort());
  });

  it('never answers empty when a content word of the question is in an entry', async () => {
    for (const [question, note] of [
      ['where do I like to sit on flights?', notes.seats],
      ['who is my dentist', notes.dentist],
      ['what happens in September', notes.school],
      ['anything from the market?', notes.market],
    ] as const) {
      const res = await search(question);
      expect(contents(res), question).toContain(note);
      expect(contents(res)[0], question).toBe(note);
    }
  });

  it('keeps the strict filter with match=all', async () => {
    expect(contents(await search('Emma allergic', { match: 'all' }))).toEqual([notes.allergy]);
    expect(contents(await search('Emma allergic september', { match: 'all' }))).toEqual([]);
    // Stop words are left out in both modes: "the" and "to" are not required.
    expect(contents(await search('the peanuts to', { match: 'all' })).sort()).toEqual([notes.allergy, notes.market].sort());
    expectError(await search('emma', { match: 'every' }), 400, 'VALIDATION_ERROR');
  });

  it('matches the stop words of a query made of nothing else', async () => {
    expect(contents(await search('who are you'))[0]).toBe(notes.who);
  });

  it('answers hostile queries with 200 or a clear 400', async () => {
    const hostile = [
      '"unbalanced OR NEAR( emma -- * ^ : {} [] \\ \'',
      'a_b c-d e.f emma.peanuts',
      '😀😀😀 emma 😀',
      Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ').slice(0, 500),
      ' '.repeat(500),
    ];
    for (const q of hostile) expect((await search(q)).status, q).toBe(200);
    expect(contents(await search('a_b c-d e.f emma.peanuts'))[0]).toBe(notes.allergy);
    expectError(await search('x'.repeat(501)), 400, 'VALIDATION_ERROR');
  });

  it('ranks knowledge-base documents by any word, and by every word with match=all', async () => {
    // Emma is in two of the three documents, so it weighs almost nothing (bm25's idf); the bag and the epipen decide.
    const res = await t.request('GET', '/api/v1/brain/knowledge-base', { token: owner.token, query: { q: 'Does Emma need an epipen in the bag?' } });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { title: string }) => d.title)).toEqual(['Allergies', 'Flights']);
    const all = await t.request('GET', '/api/v1/brain/knowledge-base', { token: owner.token, query: { q: 'emma window', match: 'all' } });
    expect(all.body.data.map((d: { title: string }) => d.title)).toEqual(['Flights']);
  });

  describe('through MCP', () => {
    let client: Client;

    beforeAll(async () => {
      const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const token = await t.tokenWithScopes(owner, ['memory', 'knowledge']);
      client = new Client({ name: 'search-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    });
    afterAll(async () => client?.close());

    it('search_memory ranks a question by any word, and takes match=all', async () => {
      const found = await client.callTool({ name: 'search_memory', arguments: { q: 'Is Emma allergic to anything?', limit: 5 } });
      expect(found.isError).toBeFalsy();
      expect((found.structuredContent as any).items.map((e: { content: string }) => e.content)).toEqual([notes.allergy, notes.school]);
      const strict = await client.callTool({ name: 'search_memory', arguments: { q: 'Emma school', match: 'all' } });
      expect((strict.structuredContent as any).items.map((e: { content: string }) => e.content)).toEqual([notes.school]);
    });

    it('search_knowledge answers the passages of a question by any word, with their documents and offsets', async () => {
      const found = await client.callTool({ name: 'search_knowledge', arguments: { q: 'what do I plant in March?' } });
      expect(found.isError).toBeFalsy();
      const hits = (found.structuredContent as any).items;
      expect(hits.map((d: { title: string }) => d.title)).toEqual(['Garden']);
      expect(hits[0]).toMatchObject({ type: 'knowledge', document: { title: 'Garden', start: expect.any(Number), end: expect.any(Number), headingPath: [] } });
      expect(hits[0].text).toMatch(/march/i);
    });
  });
});

/** mulberry32, so that a failure can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

// Word families that stem together, prefixes of one another, stop words, diacritics and case.
const VOCABULARY = `deploy deploying deployed deployment garden gardens gardening café cafe connect connected
  connection run running runner note notes notebook calendar contract contractor relational rational happy
  happiness Résumé resume naïve naive 2024 v2 sky skies market marketing trip tripod the a of my who is in to`
  .trim()
  .split(/\s+/);

describe('the index and the scan of the rows agree', () => {
  const random = seeded(33);
  const pick = () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]!;
  const words = (n: number) => Array.from({ length: n }, pick).join(' ');
  let owners: [Owner, Owner];

  beforeAll(async () => {
    const [a, b] = await Promise.all([t.createOwner('Agreeing'), scan.createOwner('Agreeing')]);
    const [noiseA, noiseB] = await Promise.all([t.createOwner('Noise'), scan.createOwner('Noise')]);
    owners = [a, b];
    // Each text once: the same text again (as memory compares them) is a duplicate, answered 200, not a new entry.
    const seen = new Set<string>();
    const memory = Array.from({ length: 120 }, () => words(1 + Math.floor(random() * 12))).filter((text) => !seen.has(sameTextForm(text)) && seen.add(sameTextForm(text)));
    const docs = Array.from({ length: 40 }, (_, i) => [`${words(1 + Math.floor(random() * 3))} ${i}`, words(5 + Math.floor(random() * 40))] as const);
    // One at a time, in the same order on both apps: ids grow in that order, and ties go to the lower id.
    for (const content of memory) {
      await remember(t, a, content);
      await remember(scan, b, content);
    }
    for (const [title, content] of docs) {
      await document(t, a, title, content);
      await document(scan, b, title, content);
    }
    // Another owner's rows never count: the statistics are each owner's own.
    for (let i = 0; i < 30; i++) {
      const content = words(6);
      await remember(t, noiseA, content);
      await remember(scan, noiseB, `${content} ${words(3)}`);
    }
  });

  it('answers the same memory entries in the same order, in both modes', async () => {
    let nonEmpty = 0;
    for (let i = 0; i < 60; i++) {
      const q = words(1 + Math.floor(random() * 4));
      const match = i % 2 === 0 ? 'any' : 'all';
      const limit = [1, 5, 20, 200][i % 4]!;
      const [fromIndex, fromScan] = await Promise.all([
        t.request('GET', '/api/v1/memory', { token: owners[0].token, query: { q, match, limit } }),
        scan.request('GET', '/api/v1/memory', { token: owners[1].token, query: { q, match, limit } }),
      ]);
      expect(fromIndex.status).toBe(200);
      expect(contents(fromScan), `${q} (${match}, ${limit})`).toEqual(contents(fromIndex));
      if (fromIndex.body.data.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(30);
  });

  it('answers the same documents with the same scores, in both modes', async () => {
    let nonEmpty = 0;
    for (let i = 0; i < 40; i++) {
      const q = words(1 + Math.floor(random() * 4));
      const match = i % 2 === 0 ? 'any' : 'all';
      const [fromIndex, fromScan] = await Promise.all([
        t.request('GET', '/api/v1/brain/knowledge-base', { token: owners[0].token, query: { q, match, limit: 10 } }),
        scan.request('GET', '/api/v1/brain/knowledge-base', { token: owners[1].token, query: { q, match, limit: 10 } }),
      ]);
      const hits = (res: typeof fromIndex) => res.body.data.map((d: { title: string; rank: number }) => [d.title, d.rank]);
      expect(hits(fromScan), `${q} (${match})`).toEqual(hits(fromIndex));
      if (fromIndex.body.data.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(20);
  });
});
