import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { createMemorySearchProvider } from '../memory/memory.search.js';
import { createSkillsSearchProvider } from '../skills/skills.search.js';
import type { Fusion } from './search.fusion.js';
import { mergeHits } from './search.routes.js';
import { markWords, queryStems, wordsHeld } from '../../storage/search/marks.js';
import type { ProvidedHit } from './search.provider.js';
import { SEARCH_HIT_TEXT_MAX, type SearchHit } from './search.schemas.js';
import { sameTextForm } from '../../lib/same-text.js';

let t: TestApp;
let owner: Owner;
let other: Owner;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Searching Owner');
  other = await t.createOwner('Other Owner');
  const remember = async (who: Owner, content: string) => {
    const res = await t.request('POST', '/api/v1/memory', { token: who.token, body: { content } });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const skill = async (who: Owner, body: Record<string, string>) => {
    const res = await t.request('POST', '/api/v1/skills', { token: who.token, body });
    expect(res.status).toBe(201);
    return String(res.body.data.id);
  };
  ids.dentist = await remember(owner, 'My dentist is Dr. Patel, on Harbour Street.\nCheck-ups every six months.');
  ids.seats = await remember(owner, 'I prefer aisle seats on long flights');
  ids.café = await remember(owner, 'Meet Zoë at the Café Émile on Fridays');
  ids.long = await remember(owner, `${'Filler words about nothing in particular. '.repeat(60)}The spare key is under the blue flowerpot. ${'More filler text follows here. '.repeat(60)}`);
  ids.skill = await skill(owner, { name: 'flight-booker', description: 'Books flights and picks seats the owner likes', category: 'travel' });
  ids.appointment = await skill(owner, { name: 'appointment-maker', description: 'Makes appointments by phone', category: 'errands' });
  // Another owner's items that match the same words better must never appear.
  ids.theirs = await remember(other, 'dentist dentist dentist Patel Patel flights seats');
  ids.theirSkill = await skill(other, { name: 'dentist-patel-flights', description: 'dentist Patel flights seats', category: 'dentist' });
});
afterAll(async () => t.close());

type Hit = { id: string; type: string; title: string; text: string; score: number; matched: string; marks: Array<[number, number]>; slug?: string };

async function search(query: Record<string, string | number>, token = owner.token) {
  return t.request<{ data: Hit[]; types: string[] }>('GET', '/api/v1/search', { token, query });
}

describe('GET /api/v1/search', () => {
  it('leaves out memory entries that are no longer current (superseded or expired), as GET /memory?q= does', async () => {
    const writer = await t.createOwner('Superseding Owner');
    const write = async (body: Record<string, unknown>) => {
      const res = await t.request('POST', '/api/v1/memory', { token: writer.token, body });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const old = await write({ content: 'My gym is the Riverside gym' });
    const current = await write({ content: 'My gym is the Hilltop gym now', supersedes: [old] });
    const expired = await write({ content: 'Gym membership discount until last year', validUntil: '2020-01-01T00:00:00Z' });
    const res = await search({ q: 'which gym', types: 'memory' }, writer.token);
    expect(res.status).toBe(200);
    const found = res.body.data.map((hit) => hit.id);
    expect(found).toContain(current);
    expect(found).not.toContain(old);
    expect(found).not.toContain(expired);
  });

  it('finds a current entry however many entries it replaced, or a limited token cannot see, rank above it', async () => {
    const writer = await t.createOwner('Crowded Owner');
    const write = async (token: string, body: Record<string, unknown>) => {
      const res = await t.request('POST', '/api/v1/memory', { token, body });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    // Fifteen short entries (each ranks above the long one) replaced by one.
    const replaced: string[] = [];
    for (let i = 0; i < 15; i++) replaced.push(await write(writer.token, { content: `zqsup ${i}` }));
    const current = await write(writer.token, { content: `zqsup: every earlier note on this is replaced by this longer one ${'and more words '.repeat(8)}`, supersedes: replaced });
    const one = await search({ q: 'zqsup', types: 'memory', limit: 1 }, writer.token);
    expect(one.body.data.map((hit) => hit.id)).toEqual([current]);

    // A token limited to a tag writes one long entry; sixty short ones it cannot see say the same word.
    const made = await t.request('POST', '/api/v1/tokens', { token: writer.token, body: { name: 'work agent', scopes: ['memory', 'read'], memoryTags: ['work'] } });
    const limited = made.body.data.token as string;
    const own = await write(limited, { content: `zqgamma is in the work notes ${'with plenty of other words '.repeat(8)}`, tags: ['work'] });
    for (let i = 0; i < 60; i++) await write(writer.token, { content: `zqgamma ${i}`, tags: ['private'] });
    const seen = await search({ q: 'zqgamma', types: 'memory' }, limited);
    expect(seen.body.data.map((hit) => hit.id)).toEqual([own]);
    expect(seen.body.data[0]).toMatchObject({ score: 1 });

    // The memory list's search and the context's task, past 200 hidden entries (imported untagged).
    const lines = Array.from({ length: 250 }, (_, i) => `zqgamma imported ${i}`).join('\n');
    expect((await t.request('POST', '/api/v1/memory/import', { token: writer.token, body: { format: 'text', content: lines } })).status).toBe(200);
    expect((await search({ q: 'zqgamma', types: 'memory' }, limited)).body.data.map((hit) => hit.id)).toEqual([own]);
    const listed = await t.request('GET', '/api/v1/memory', { token: limited, query: { q: 'zqgamma' } });
    expect(listed.body.data.map((entry: { id: string }) => entry.id)).toEqual([own]);
    const context = await t.request('GET', '/api/v1/gateway/context', { token: limited, query: { task: 'zqgamma' } });
    expect(context.body.data.memory).toMatchObject({ relevant: 1 });
  });

  it('cuts a long title on whole characters, never half of an emoji', async () => {
    const writer = await t.createOwner('Emoji Owner');
    const res = await t.request('POST', '/api/v1/memory', { token: writer.token, body: { content: `${'🥕'.repeat(700)} carrot` } });
    expect(res.status).toBe(201);
    const hit = (await search({ q: 'carrot', types: 'memory' }, writer.token)).body.data[0]!;
    expect(hit.title.endsWith('\u2026')).toBe(true);
    expect(hit.title).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it('answers each memory hit as its entry stands after every write: new text, tags a limited token no longer carries, superseded, deleted', async () => {
    // The words index keeps the entries' texts and answers hits from them: each write must show at once.
    const writer = await t.createOwner('Rewriting Owner');
    const write = async (body: Record<string, unknown>) => {
      const res = await t.request('POST', '/api/v1/memory', { token: writer.token, body });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const change = async (id: string, body: Record<string, unknown>) => expect((await t.request('PATCH', `/api/v1/memory/${id}`, { token: writer.token, body })).status).toBe(200);
    const sailingToken = await t.request('POST', '/api/v1/tokens', { token: writer.token, body: { name: 'sailing agent', scopes: ['memory'], memoryTags: ['sailing'] } });
    expect(sailingToken.status).toBe(201);
    const limited = sailingToken.body.data.token as string;
    const texts = async (token: string) => {
      const res = await search({ q: 'where is the boat moored', types: 'memory' }, token);
      expect(res.status).toBe(200);
      return res.body.data.map((hit) => hit.text);
    };

    const first = await write({ content: 'The boat is moored at pier seven', tags: ['sailing'] });
    const rowing = await write({ content: 'The rowing boat is in the shed', tags: ['garden'] });
    expect(await texts(writer.token)).toEqual(['The boat is moored at pier seven', 'The rowing boat is in the shed']);
    expect(await texts(limited)).toEqual(['The boat is moored at pier seven']);
    await change(first, { content: 'The boat is moored at pier nine' });
    expect(await texts(writer.token)).toEqual(['The boat is moored at pier nine', 'The rowing boat is in the shed']);
    expect(await texts(limited)).toEqual(['The boat is moored at pier nine']);
    await change(first, { tags: ['fishing'] });
    expect(await texts(limited)).toEqual([]);
    const second = await write({ content: 'The boat is moored at the dry dock', supersedes: [first] });
    expect(await texts(writer.token)).toEqual(['The boat is moored at the dry dock', 'The rowing boat is in the shed']);
    await change(second, { validUntil: '2020-01-01T00:00:00Z' });
    expect(await texts(writer.token)).toEqual(['The rowing boat is in the shed']);
    expect((await t.request('DELETE', `/api/v1/memory/${rowing}`, { token: writer.token })).status).toBe(200);
    expect(await texts(writer.token)).toEqual([]);
  });

  it('answers compact hits of several kinds, best first, each with its words marked; never another owner\'s', async () => {
    const res = await search({ q: 'which dentist did I pick, Patel?' });
    expect(res.status).toBe(200);
    expect(res.body.types).toEqual(['memory', 'knowledge', 'skills']);
    const [first] = res.body.data;
    expect(first).toMatchObject({ id: ids.dentist, type: 'memory', title: 'My dentist is Dr. Patel, on Harbour Street.', matched: 'words' });
    expect(first!.text).toBe('My dentist is Dr. Patel, on Harbour Street.\nCheck-ups every six months.');
    expect(first!.marks.map(([s, e]) => first!.text.slice(s, e))).toEqual(['dentist', 'Patel']);
    expect(Object.keys(first!).sort()).toEqual(['id', 'marks', 'matched', 'score', 'text', 'title', 'type']);
    const all = JSON.stringify(res.body);
    expect(all).not.toContain(ids.theirs);
    expect(res.body.data.some((hit) => hit.type === 'skills' && hit.id === ids.theirSkill)).toBe(false);
  });

  it('ranks any word (stems and prefixes), marks exactly the words the ranking counted, and interleaves kinds fairly', async () => {
    const res = await search({ q: 'seats for flying', types: 'memory,skills' });
    expect(res.status).toBe(200);
    expect(res.body.types).toEqual(['memory', 'skills']);
    const found = res.body.data.map((hit) => `${hit.type}:${hit.id}`);
    expect(found).toContain(`memory:${ids.seats}`);
    expect(found).toContain(`skills:${ids.skill}`);
    for (const hit of res.body.data) {
      expect(hit.marks.length).toBeGreaterThan(0);
      for (const [s, e] of hit.marks) expect(hit.text.slice(s, e).toLowerCase()).toMatch(/^(seats|flights|flight)$/);
    }
    const skill = res.body.data.find((hit) => hit.type === 'skills')!;
    expect(skill).toMatchObject({ title: 'flight-booker', slug: 'flight-booker', text: 'Books flights and picks seats the owner likes' });
    // Each the best of its kind, the entry holding two of the three words goes before the skill holding one.
    const mixed = await search({ q: 'dentist Patel appointment' });
    expect(mixed.body.data.map((hit) => `${hit.type}:${hit.id}`).slice(0, 2)).toEqual([`memory:${ids.dentist}`, `skills:${ids.appointment}`]);
    // And the other way round: the skill holding more of the words goes first.
    const booked = await search({ q: 'dentist booked for flights' });
    expect(booked.body.data.map((hit) => `${hit.type}:${hit.id}`)[0]).toBe(`skills:${ids.skill}`);
  });

  it('marks words with diacritics at their own offsets, and folds them as the index does', async () => {
    const res = await search({ q: 'cafe emile zoe', types: 'memory' });
    const hit = res.body.data.find((h) => h.id === ids.café)!;
    expect(hit.marks.map(([s, e]) => hit.text.slice(s, e))).toEqual(['Zoë', 'Café', 'Émile']);
  });

  it('bounds the text to the part around the words, marks inside it', async () => {
    const res = await search({ q: 'spare key flowerpot', types: 'memory' });
    const hit = res.body.data.find((h) => h.id === ids.long)!;
    expect(hit.text.length).toBeLessThanOrEqual(SEARCH_HIT_TEXT_MAX + 2);
    expect(hit.text.startsWith('\u2026')).toBe(true);
    expect(hit.text.endsWith('\u2026')).toBe(true);
    expect(hit.marks.map(([s, e]) => hit.text.slice(s, e))).toEqual(['spare', 'key', 'flowerpot']);
    expect(hit.title.length).toBeLessThanOrEqual(120);
  });

  it('answers at most limit hits (default 10), and an empty list when nothing matches', async () => {
    expect((await search({ q: 'seats dentist key flights', limit: 2 })).body.data).toHaveLength(2);
    const none = await search({ q: 'zzzznotaword' });
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
  });

  it('refuses a missing or blank q, a q over 500 characters, unknown types and a limit out of bounds, saying what to send', async () => {
    expect(expectError(await t.request('GET', '/api/v1/search', { token: owner.token }), 400, 'VALIDATION_ERROR').message).toContain('q');
    expectError(await search({ q: '   ' }), 400, 'VALIDATION_ERROR');
    expectError(await search({ q: 'a'.repeat(501) }), 400, 'VALIDATION_ERROR');
    const types = expectError(await search({ q: 'dentist', types: 'memory,emails' }), 400, 'VALIDATION_ERROR');
    expect(types.message).toContain('memory, knowledge, skills');
    expectError(await search({ q: 'dentist', types: '' }), 400, 'VALIDATION_ERROR');
    expectError(await search({ q: 'dentist', limit: 0 }), 400, 'VALIDATION_ERROR');
    expectError(await search({ q: 'dentist', limit: 51 }), 400, 'VALIDATION_ERROR');
    expect((await search({ q: 'dentist', limit: 50 })).status).toBe(200);
    // Repeats are one; the kinds are searched in the order asked.
    expect((await search({ q: 'dentist', types: 'skills,memory,skills' })).body.types).toEqual(['skills', 'memory']);
    // No word at all (punctuation only) is no error: nothing matches.
    expect((await search({ q: '?!…' })).body.data).toEqual([]);
  });

  it('searches each kind under its own scope: left out when not asked for, 403 naming the scope when asked for', async () => {
    const memoryOnly = await t.tokenWithScopes(owner, ['memory']);
    const mine = await search({ q: 'flights seats' }, memoryOnly);
    expect(mine.status).toBe(200);
    expect(mine.body.types).toEqual(['memory']);
    expect(mine.body.data.every((hit) => hit.type === 'memory')).toBe(true);
    expect(mine.body.data.map((hit) => hit.id)).toContain(ids.seats);
    const refused = expectError(await search({ q: 'flights', types: 'memory,skills' }, memoryOnly), 403, 'INSUFFICIENT_SCOPE');
    expect(refused.message).toContain('skills');
    expect(refused.details).toEqual({ requiredScopes: ['skills'] });
    const skillsOnly = await t.tokenWithScopes(owner, ['skills']);
    expect((await search({ q: 'flights' }, skillsOnly)).body.data.map((hit) => hit.type)).toEqual(['skills']);
    // A token of none of the kinds' scopes may not call the route at all.
    expectError(await search({ q: 'flights' }, await t.tokenWithScopes(owner, ['read'])), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('GET', '/api/v1/search', { query: { q: 'flights' } }), 401, 'UNAUTHORIZED');
  });

  it('is in the OpenAPI document with its schemas', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    expect(doc.paths['/api/v1/search'].get.operationId).toBe('search');
    expect(doc.paths['/api/v1/search/status'].get.operationId).toBe('getSearchStatus');
  });
});

describe('GET /api/v1/search/status', () => {
  it("answers the embedder and the owner's indexing counts to the owner", async () => {
    const res = await t.request('GET', '/api/v1/search/status', { token: owner.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['embedder', 'indexed', 'lastError', 'pending']);
    expect(Object.keys(res.body.data.embedder).sort()).toEqual(['dimensions', 'kind', 'model', 'state']);
    expect(res.body.data.embedder).toMatchObject(t.container.embeddings.describe().kind === 'off' ? { kind: 'off', state: 'off' } : { kind: expect.any(String) });
    expect(res.body.data).toMatchObject(await t.container.searchIndexer.status(owner.id));
    const session = await t.login(owner);
    expect((await t.request('GET', '/api/v1/search/status', { token: session })).status).toBe(200);
  });

  it('is refused to API tokens, whatever their scopes', async () => {
    const token = await t.tokenWithScopes(owner, ['memory', 'knowledge', 'skills']);
    expectError(await t.request('GET', '/api/v1/search/status', { token }), 403, 'FORBIDDEN');
  });
});

describe('MCP search tool', () => {
  it('spans the kinds under the same scopes and answers the hits compactly', async () => {
    const base = await t.listen();
    const token = await t.tokenWithScopes(owner, ['memory']);
    const client = new Client({ name: 'search-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain('search');
      const found = await client.callTool({ name: 'search', arguments: { q: 'who is my dentist', limit: 3 } });
      expect(found.isError).toBeFalsy();
      // The API's { data, types } without its envelope: the hits as items.
      const body = found.structuredContent as { items: Hit[]; types: string[] };
      expect(body.types).toEqual(['memory']);
      expect(body.items[0]).toMatchObject({ id: ids.dentist, type: 'memory', title: expect.stringContaining('Patel') });
      const api = await search({ q: 'who is my dentist', limit: 3 }, token);
      const { data, ...rest } = api.body;
      expect(body).toEqual({ items: data, ...rest });
      const refused = await client.callTool({ name: 'search', arguments: { q: 'dentist', types: 'skills' } });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(/^INSUFFICIENT_SCOPE: .*skills/);
    } finally {
      await client.close();
    }
  });
});

describe('the index and the scan of the rows agree, for the one search and for skills by any word', () => {
  /** The same data, every owner beyond the index's bound: searched by reading the rows. */
  let scan: TestApp;
  let owners: [Owner, Owner];
  // Word families that stem together, prefixes of one another, stop words, diacritics and case.
  const vocabulary = 'deploy deploying deployed garden gardening café cafe connect connection run runner note notebook Résumé resume 2024 sky skies trip tripod the of my'.split(' ');
  let state = 7;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const words = (n: number) => Array.from({ length: n }, () => vocabulary[Math.floor(random() * vocabulary.length)]!).join(' ');

  beforeAll(async () => {
    scan = await createTestApp({ config: { searchIndexPercent: 0 } });
    owners = [await t.createOwner('Agreeing'), await scan.createOwner('Agreeing')];
    // Each text once: the same text again (as memory compares them) is a duplicate, answered 200, not a new entry.
    const seen = new Set<string>();
    const memory = Array.from({ length: 60 }, () => words(1 + Math.floor(random() * 10))).filter((text) => !seen.has(sameTextForm(text)) && seen.add(sameTextForm(text)));
    const skills = Array.from({ length: 30 }, (_, i) => ({ name: `skill-${i}-${words(1).replace(/[^a-z0-9]/gi, 'x')}`, description: words(3 + Math.floor(random() * 12)), category: words(1) }));
    // One at a time, in the same order on both apps: ids grow in that order, and ties go to the lower id.
    for (const content of memory) {
      for (const [app, who] of [[t, owners[0]], [scan, owners[1]]] as const) expect((await app.request('POST', '/api/v1/memory', { token: who.token, body: { content } })).status).toBe(201);
    }
    for (const body of skills) {
      for (const [app, who] of [[t, owners[0]], [scan, owners[1]]] as const) expect((await app.request('POST', '/api/v1/skills', { token: who.token, body })).status).toBe(201);
    }
  });
  afterAll(async () => scan?.close());

  it('answers the same hits, scores and marks', async () => {
    let nonEmpty = 0;
    for (let i = 0; i < 30; i++) {
      const q = words(1 + Math.floor(random() * 4));
      const limit = [1, 5, 20, 50][i % 4]!;
      const [fromIndex, fromScan] = await Promise.all([
        t.request('GET', '/api/v1/search', { token: owners[0].token, query: { q, limit, types: 'memory,skills' } }),
        scan.request('GET', '/api/v1/search', { token: owners[1].token, query: { q, limit, types: 'memory,skills' } }),
      ]);
      expect(fromIndex.status).toBe(200);
      // Ids differ between the two apps (memory ids are made anew); everything else is the same.
      const shown = (res: typeof fromIndex) => res.body.data.map((hit: Hit) => ({ ...hit, id: hit.type === 'memory' ? hit.text : hit.title }));
      expect(shown(fromScan), q).toEqual(shown(fromIndex));
      if (fromIndex.body.data.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(15);
  });

  it('answers the same skills in the same order, by any word and with match=all', async () => {
    let nonEmpty = 0;
    for (let i = 0; i < 30; i++) {
      const q = words(1 + Math.floor(random() * 4));
      const match = i % 2 === 0 ? 'any' : 'all';
      const [fromIndex, fromScan] = await Promise.all([
        t.request('GET', '/api/v1/skills', { token: owners[0].token, query: { q, match, limit: 10 } }),
        scan.request('GET', '/api/v1/skills', { token: owners[1].token, query: { q, match, limit: 10 } }),
      ]);
      const names = (res: typeof fromIndex) => res.body.data.map((s: { name: string }) => s.name);
      expect(names(fromScan), `${q} (${match})`).toEqual(names(fromIndex));
      if (match === 'any' && fromIndex.body.data.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(10);
  });
});

describe('providers and fusion', () => {
  /** A fusion that puts `extra` (found "by meaning") first, and marks the words' hits both. */
  const meaningFirst = (extra: string[]): Fusion => ({
    candidates: 50,
    rank: async (_owner, _source, _q, lexical, limit) =>
      [...extra.map((id) => ({ id, score: 10, matched: 'meaning' as const })), ...lexical.map((hit) => ({ id: hit.id, score: hit.score, matched: 'both' as const }))].slice(0, limit),
  });

  it("answers what fusion found by meaning, read by id, and never another owner's item whatever fusion names", async () => {
    const memory = createMemorySearchProvider(t.container.memory, meaningFirst([ids.theirs!, ids.seats!]));
    const hits = (await memory.search(owner.id, 'dentist', 10)).map((provided) => provided.hit);
    expect(hits.map((hit) => [hit.id, hit.matched])).toEqual([
      [ids.seats, 'meaning'],
      [ids.dentist, 'both'],
    ]);
    // Found by meaning, it holds none of the words: nothing marked.
    expect(hits[0]!.marks).toEqual([]);
    const skills = createSkillsSearchProvider(t.container.skills, meaningFirst([ids.theirSkill!, ids.appointment!, 'not-a-number']));
    const found = (await skills.search(owner.id, 'flights', 10)).map((provided) => provided.hit);
    expect(found.map((hit) => [hit.id, hit.matched, hit.slug])).toEqual([
      [ids.appointment, 'meaning', 'appointment-maker'],
      [ids.skill, 'both', 'flight-booker'],
    ]);
  });

  it('merges kinds by relative score and words held, keeping each kind\'s order; meaning alone counts half', () => {
    // Each hit with the query's words its title and text hold, as a provider counts them.
    const merge = (lists: SearchHit[][], q: string, limit: number) => {
      const stems = queryStems(q);
      const provided = lists.map((hits) => hits.map((hit): ProvidedHit => ({ hit, wordsHeld: wordsHeld(markWords(`${hit.title}\n${hit.text}`, stems).matched) })));
      return mergeHits(provided, stems.length, limit);
    };
    const hit = (id: string, type: SearchHit['type'], text: string, score: number, matched: SearchHit['matched'] = 'words'): SearchHit => ({ id, type, title: id, text, score, matched, marks: [] });
    const memory = [hit('m1', 'memory', 'garden notebook', 8), hit('m2', 'memory', 'unrelated', 6, 'meaning'), hit('m3', 'memory', 'garden', 2)];
    const skills = [hit('s1', 'skills', 'garden', 100), hit('s2', 'skills', 'garden notebook', 90)];
    // m1 1×1; s1 1×0.75; s2 0.9×1 (but after s1: a kind's order stands); m2 0.75×0.5; m3 0.25×0.75.
    expect(merge([memory, skills], 'garden notebook', 10).map((h) => h.id)).toEqual(['m1', 's1', 's2', 'm2', 'm3']);
    expect(merge([memory, skills], 'garden notebook', 2).map((h) => h.id)).toEqual(['m1', 's1']);
    // Equal standing: the kinds in the order asked.
    expect(merge([[hit('s', 'skills', 'garden', 1)], [hit('m', 'memory', 'garden', 5)]], 'garden', 10).map((h) => h.id)).toEqual(['s', 'm']);
    expect(merge([[], []], 'garden', 10)).toEqual([]);
    // One kind alone (the other found nothing) keeps its order, whatever the words held.
    expect(merge([[], memory], 'garden notebook', 2).map((h) => h.id)).toEqual(['m1', 'm2']);
  });
});
