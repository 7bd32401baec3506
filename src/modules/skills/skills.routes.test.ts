import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { createTestApp, expectError, type ApiResponse, type Owner, type TestApp } from '../../../test/harness.js';
import type { Principal } from '../../http/access.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import { createSkillsContextSection } from './skills.context.js';
import { splitFrontmatter } from './skills.frontmatter.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SKILL_KEYS = ['active', 'category', 'createdAt', 'description', 'id', 'name', 'origin', 'scriptContent', 'slug', 'updatedAt'];
const SUMMARY_KEYS = SKILL_KEYS.filter((k) => k !== 'scriptContent');
const SUGGESTION_KEYS = ['category', 'description', 'id', 'name', 'slug'];

let t: TestApp;
let alice: Owner;
let bob: Owner;

beforeAll(async () => {
  t = await createTestApp();
  alice = await t.createOwner('Alice');
  bob = await t.createOwner('Bob');
});
afterAll(async () => t.close());

function uniqueName(prefix = 'skill'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

async function createSkill(owner: Owner, body: Record<string, unknown>) {
  const res = await t.request('POST', '/api/v1/skills', { token: owner.token, body });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.data;
}

function frontmatterOf(content: string): Record<string, unknown> {
  const split = splitFrontmatter(content);
  expect(split.frontmatter).not.toBeNull();
  const doc = parseDocument(split.frontmatter!, { schema: 'core', strict: true, uniqueKeys: true });
  expect(doc.errors).toEqual([]);
  return doc.toJS({ maxAliasCount: 0 }) as Record<string, unknown>;
}

async function insertDocument(owner: Owner, title: string): Promise<string> {
  const id = newId('doc');
  const now = isoNow();
  await t.storage.db
    .insertInto('kb_documents')
    .values({ id, owner_id: owner.id, title, content: `About ${title}`, source: 'agent', mime_type: null, size_bytes: 10, created_at: now, updated_at: now })
    .execute();
  return id;
}

async function insertPersona(owner: Owner, name: string): Promise<string> {
  const id = newId('per');
  const now = isoNow();
  await t.storage.db
    .insertInto('personas')
    .values({ id, owner_id: owner.id, name, description: '', soul_content: 'Be kind', active: 0, created_at: now, updated_at: now })
    .execute();
  return id;
}

async function skillRowCount(owner: Owner): Promise<number> {
  const row = await t.storage.db
    .selectFrom('skills')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('owner_id', '=', owner.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST /api/v1/skills', () => {
  it('answers 201 with the skill; the slug is the trimmed name and the SKILL.md gets a frontmatter', async () => {
    const res = await t.request('POST', '/api/v1/skills', {
      token: alice.token,
      body: { name: '  Pdf-Tools  ', description: 'Reads PDF forms', category: 'Documents', scriptContent: '# PDF\n\nUse pdftotext.\n' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    const skill = res.body.data;
    expect(Object.keys(skill).sort()).toEqual(SKILL_KEYS);
    expect(Number.isInteger(skill.id)).toBe(true);
    expect(skill).toMatchObject({ slug: 'Pdf-Tools', name: 'Pdf-Tools', description: 'Reads PDF forms', category: 'Documents', active: false });
    expect(skill.origin).toEqual({ type: 'created' });
    expect(skill.createdAt).toMatch(ISO);
    expect(skill.updatedAt).toBe(skill.createdAt);
    expect(skill.scriptContent).toBe('---\nname: Pdf-Tools\ndescription: Reads PDF forms\n---\n\n# PDF\n\nUse pdftotext.\n');

    const read = await t.request('GET', `/api/v1/skills/${skill.id}`, { token: alice.token });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(skill);
  });

  it('needs only a name; the SKILL.md is then a bare frontmatter', async () => {
    const skill = await createSkill(alice, { name: uniqueName() });
    expect(skill.description).toBe('');
    expect(skill.category).toBe('');
    expect(frontmatterOf(skill.scriptContent)).toEqual({ name: skill.name, description: '' });
  });

  it('sanitizes the frontmatter: unknown keys go, the record wins, the description is adopted when none was given', async () => {
    const name = uniqueName('adopt');
    const skill = await createSkill(alice, {
      name,
      scriptContent: '---\nname: something-else\ndescription: From the file\nlicense: MIT\nhooks: { run: "rm -rf /" }\n---\nBody\n',
    });
    expect(skill.description).toBe('From the file');
    expect(frontmatterOf(skill.scriptContent)).toEqual({ name, description: 'From the file', license: 'MIT' });
    expect(skill.scriptContent.endsWith('---\nBody\n')).toBe(true);

    const given = await createSkill(alice, { name: uniqueName(), description: 'Mine', scriptContent: '---\ndescription: Theirs\n---\n' });
    expect(given.description).toBe('Mine');
    expect(frontmatterOf(given.scriptContent).description).toBe('Mine');
  });

  it('answers 409 CONFLICT for a name that exists in any case, and another owner may use it', async () => {
    const name = uniqueName('Clash');
    await createSkill(alice, { name });
    for (const variant of [name, name.toLowerCase(), name.toUpperCase(), `  ${name}  `]) {
      const res = await t.request('POST', '/api/v1/skills', { token: alice.token, body: { name: variant } });
      expectError(res, 409, 'CONFLICT');
    }
    const other = await t.request('POST', '/api/v1/skills', { token: bob.token, body: { name } });
    expect(other.status).toBe(201);
  });

  it('lets exactly one of many concurrent creates of one name succeed', async () => {
    const name = uniqueName('race');
    const before = await skillRowCount(alice);
    const variants = [name, name.toUpperCase(), name, name.toLowerCase(), name, name.toUpperCase(), name, name];
    const results = await Promise.all(variants.map((n) => t.request('POST', '/api/v1/skills', { token: alice.token, body: { name: n } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) expectError(r, 409, 'CONFLICT');
    expect(await skillRowCount(alice)).toBe(before + 1);
  });

  // Concurrent creates share one statement on PostgreSQL; each must get its own row's id back,
  // even where two owners create skills of the same names at once.
  it('gives each of many concurrent creates, by two owners, the id of its own skill', async () => {
    const names = Array.from({ length: 12 }, (_, i) => uniqueName(`batch${i}`));
    const asked = names.flatMap((name) => [
      { owner: alice, name },
      { owner: bob, name },
    ]);
    const results = await Promise.all(asked.map(({ owner, name }) => t.request('POST', '/api/v1/skills', { token: owner.token, body: { name, description: `${name} of ${owner.id}` } })));
    expect(results.map((r) => r.status)).toEqual(asked.map(() => 201));
    const ids = results.map((r) => r.body.data.id as number);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [i, { owner, name }] of asked.entries()) {
      const read = await t.request('GET', `/api/v1/skills/${ids[i]}`, { token: owner.token });
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({ id: ids[i], name, description: `${name} of ${owner.id}` });
    }
  });

  it('answers 400 VALIDATION_ERROR for names that cannot be slugs, and for bad bodies', async () => {
    const bad = ['', '   ', 'has space', '../etc', '.hidden', '-dash-first', 'a/b', 'a?b', 'naïve', 'x'.repeat(101), 'emoji-💡'];
    for (const name of bad) {
      const res = await t.request('POST', '/api/v1/skills', { token: alice.token, body: { name } });
      const body = expectError(res, 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(body.details)).toContain('body.name');
    }
    expect((await t.request('POST', '/api/v1/skills', { token: alice.token, body: { name: `a${'b'.repeat(99)}` } })).status).toBe(201);
    expect((await t.request('POST', '/api/v1/skills', { token: alice.token, body: { name: 'v1.2_beta-3' } })).status).toBe(201);
    expectError(await t.request('POST', '/api/v1/skills', { token: alice.token, body: {} }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', '/api/v1/skills', { token: alice.token, body: { name: uniqueName(), slug: 'x' } }), 400, 'VALIDATION_ERROR');
    expectError(
      await t.request('POST', '/api/v1/skills', { token: alice.token, body: { name: uniqueName(), description: 'd'.repeat(1025) } }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await t.request('POST', '/api/v1/skills', { token: alice.token, body: 'name: x', headers: { 'content-type': 'text/markdown' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });
});

describe('GET /api/v1/skills', () => {
  let owner: Owner;
  const ids: number[] = [];

  beforeAll(async () => {
    owner = await t.createOwner('Lister');
    for (let i = 0; i < 5; i++) {
      const skill = await createSkill(owner, {
        name: `list-${i}`,
        category: i % 2 === 0 ? 'Even' : 'Odd',
        scriptContent: `# Skill ${i}\n${'long text '.repeat(50)}`,
      });
      ids.push(skill.id);
    }
  });

  it('lists summaries newest first, without scriptContent, with origin and slug', async () => {
    const res = await t.request('GET', '/api/v1/skills', { token: owner.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'nextCursor']);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.data.map((s: { id: number }) => s.id)).toEqual([...ids].reverse());
    for (const item of res.body.data) {
      expect(Object.keys(item).sort()).toEqual(SUMMARY_KEYS);
      expect(item.origin).toEqual({ type: 'created' });
    }
    expect(res.text).not.toContain('long text');
  });

  it('pages with limit and cursor until nextCursor is null', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: ApiResponse = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { limit: 2, ...(cursor ? { cursor } : {}) } });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((s: { id: number }) => s.id));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    // An exact fit has no further page.
    const exact = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { limit: 5 } });
    expect(exact.body.data.length).toBe(5);
    expect(exact.body.nextCursor).toBeNull();
  });

  it('filters by slug and by category, case-insensitively', async () => {
    const bySlug = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { slug: 'LIST-3' } });
    expect(bySlug.body.data.map((s: { id: number }) => s.id)).toEqual([ids[3]]);
    const byCategory = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { category: 'eVeN' } });
    expect(byCategory.body.data.map((s: { id: number }) => s.id)).toEqual([ids[4], ids[2], ids[0]]);
    const none = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { category: 'Even ' } });
    expect(none.body.data).toEqual([]);
  });

  it('answers 400 for a limit outside 1 to 200 and for a malformed cursor', async () => {
    for (const limit of ['0', '201', '-1', 'abc', '2.5']) {
      const body = expectError(await t.request('GET', `/api/v1/skills?limit=${limit}`, { token: owner.token }), 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(body.details)).toContain('limit');
    }
    expect((await t.request('GET', '/api/v1/skills?limit=200', { token: owner.token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/skills?limit=1', { token: owner.token })).status).toBe(200);
    expectError(await t.request('GET', '/api/v1/skills?cursor=abc', { token: owner.token }), 400, 'VALIDATION_ERROR');
    const both = expectError(await t.request('GET', '/api/v1/skills?q=list&cursor=5', { token: owner.token }), 400, 'VALIDATION_ERROR');
    expect((both.details as { field: string }[]).map((d) => d.field)).toEqual(['querystring.cursor']);
  });

  it('never lists another owner\'s skills', async () => {
    const res = await t.request('GET', '/api/v1/skills', { token: bob.token, query: { limit: 200 } });
    const theirs = new Set(ids);
    expect(res.body.data.some((s: { id: number }) => theirs.has(s.id))).toBe(false);
  });
});

describe('full-text search: GET /api/v1/skills?q= and /skills/suggestions', () => {
  let owner: Owner;
  let byName: number;
  let byDescription: number;
  let byCategory: number;

  beforeAll(async () => {
    owner = await t.createOwner('Searcher');
    byDescription = (await createSkill(owner, { name: 'daily-digest', description: 'Summarises the news, the calendar and the weather', category: 'Morning' })).id;
    byName = (await createSkill(owner, { name: 'weather-report', description: 'Tells what to wear', category: 'Outdoors' })).id;
    byCategory = (await createSkill(owner, { name: 'umbrella', description: 'Reminds to take one', category: 'Weather' })).id;
    await createSkill(owner, { name: 'tax-helper', description: 'Fills tax forms', category: 'Finance' });
    // Another owner's skill that matches better than any of the owner's must never appear.
    await createSkill(bob, { name: 'weather-weather', description: 'weather weather weather', category: 'Weather' });
  });

  it('ranks a name match above a category or description match, and shows no other owner\'s skill', async () => {
    const res = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: 'weather' } });
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    const found = res.body.data.map((s: { id: number }) => s.id);
    expect(found).toHaveLength(3);
    expect(found[0]).toBe(byName);
    expect(new Set(found)).toEqual(new Set([byName, byDescription, byCategory]));
    for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(SUMMARY_KEYS);
  });

  it('answers a search in the bytes the list route serializes for the same skill (the search joins each skill\'s JSON made once)', async () => {
    const odd = await createSkill(owner, { name: 'quoting-zebra', description: 'Says "hi" \\ back, naïve \u2028 and </script>', category: 'Odd' });
    const listed = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { slug: 'quoting-zebra' } });
    for (let i = 0; i < 2; i++) {
      // Twice: the second answer is made from the skill's JSON kept from the first.
      const searched = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: i === 0 ? 'zebra' : 'zebra quoting' } });
      expect(searched.body.data.map((s: { id: number }) => s.id)).toEqual([odd.id]);
      expect(searched.text).toBe(listed.text);
      expect(searched.headers['content-type']).toBe(listed.headers['content-type']);
    }
  });

  it('answers a search of several skills, non-ASCII ones among them, as their list items joined in rank order; none as an empty list', async () => {
    const names = ['joined-okapi-one', 'joined-okapi-two', 'joined-okapi-three'];
    const descriptions = ['Okapi \u00e9t\u00e9 \u4e2d\u6587 "quoted"', 'Okapi okapi \ud83d\ude00 emoji', 'Plain okapi'];
    for (let i = 0; i < names.length; i++) await createSkill(owner, { name: names[i]!, description: descriptions[i]! });
    const itemText = async (slug: string) => {
      const listed = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { slug } });
      return listed.text.slice('{"data":['.length, -'],"nextCursor":null}'.length);
    };
    for (const limit of [3, 2]) {
      const searched = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: 'okapi', limit } });
      const slugs = searched.body.data.map((s: { slug: string }) => s.slug);
      expect(slugs).toHaveLength(limit);
      const items = await Promise.all(slugs.map(itemText));
      expect(searched.text).toBe(`{"data":[${items.join(',')}],"nextCursor":null}`);
      expect(Number(searched.headers['content-length'])).toBe(Buffer.byteLength(searched.text));
    }
    const none = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: 'zzzznotaword' } });
    expect(none.text).toBe('{"data":[],"nextCursor":null}');
  });

  it('ranks any word by default, the skills holding more and rarer words first; match=all needs every word', async () => {
    const any = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: 'what should I wear in the weather' } });
    expect(any.status).toBe(200);
    const found = any.body.data.map((s: { id: number }) => s.id);
    // weather-report holds both words (and weather in its name); the others hold one.
    expect(found[0]).toBe(byName);
    expect(new Set(found)).toEqual(new Set([byName, byDescription, byCategory]));
    // A word no skill holds takes nothing away: any word that matches answers.
    const unknownToo = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: 'tax zzzznotaword' } });
    expect(unknownToo.body.data.map((s: { name: string }) => s.name)).toEqual(['tax-helper']);
    const strict = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: 'tax zzzznotaword', match: 'all' } });
    expect(strict.body.data).toEqual([]);
    expectError(await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: 'tax', match: 'some' } }), 400, 'VALIDATION_ERROR');
  });

  it('with match=all needs every word, matches prefixes and stems, combines with filters and limit', async () => {
    const both = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: 'weather wear', match: 'all' } });
    expect(both.body.data.map((s: { id: number }) => s.id)).toEqual([byName]);
    const prefix = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: 'summar' } });
    expect(prefix.body.data.map((s: { id: number }) => s.id)).toEqual([byDescription]);
    const filtered = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: 'weather', category: 'MORNING' } });
    expect(filtered.body.data.map((s: { id: number }) => s.id)).toEqual([byDescription]);
    const limited = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: 'weather', limit: 1 } });
    expect(limited.body.data.map((s: { id: number }) => s.id)).toEqual([byName]);
    const operators = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: '"weather" OR NEAR(x) * -' } });
    expect(operators.status).toBe(200);
    const nothing = await t.request('GET', '/api/v1/skills', { token: owner.token, query: { q: '!!!' } });
    expect(nothing.body.data).toEqual([]);
  });

  it('suggests at most 10 items of exactly id, slug, name, description, category; any word may match', async () => {
    const res = await t.request('GET', '/api/v1/skills/suggestions', { token: owner.token, query: { q: 'weath' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data[0].id).toBe(byName);
    expect(res.body.data).toHaveLength(3);
    for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(SUGGESTION_KEYS);
    expect(res.body.data[0]).toEqual({ id: byName, slug: 'weather-report', name: 'weather-report', description: 'Tells what to wear', category: 'Outdoors' });

    const any = await t.request('GET', '/api/v1/skills/suggestions', { token: owner.token, query: { q: 'tax zzzznotaword' } });
    expect(any.body.data.map((s: { name: string }) => s.name)).toEqual(['tax-helper']);

    for (let i = 0; i < 11; i++) await createSkill(owner, { name: `many-${i}`, description: 'Bulk suggestion' });
    const capped = await t.request('GET', '/api/v1/skills/suggestions', { token: owner.token, query: { q: 'bulk' } });
    expect(capped.body.data).toHaveLength(10);
  });

  it('answers 400 for suggestions without q', async () => {
    const body = expectError(await t.request('GET', '/api/v1/skills/suggestions', { token: owner.token }), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(body.details)).toContain('q');
    expectError(await t.request('GET', '/api/v1/skills/suggestions?q=', { token: owner.token }), 400, 'VALIDATION_ERROR');
  });

  it('answers reflect every kind of write at once (answers may be cached on SQLite)', async () => {
    const owner2 = await t.createOwner('Cache');
    const search = async (q: string) =>
      (await t.request('GET', '/api/v1/skills', { token: owner2.token, query: { q } })).body.data as Array<Record<string, unknown>>;
    const suggest = async (q: string) =>
      (await t.request('GET', '/api/v1/skills/suggestions', { token: owner2.token, query: { q } })).body.data as Array<Record<string, unknown>>;
    expect(await search('narwhal')).toEqual([]);
    expect(await suggest('narwh')).toEqual([]);
    const skill = await createSkill(owner2, { name: 'narwhal-spotter' });
    expect((await search('narwhal')).map((s) => s.id)).toEqual([skill.id]);
    expect((await suggest('narwh')).map((s) => s.id)).toEqual([skill.id]);

    await t.request('POST', `/api/v1/skills/${skill.id}/activate`, { token: owner2.token });
    expect((await search('narwhal'))[0]!.active).toBe(true);
    await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: owner2.token, body: { category: 'Sea' } });
    expect((await search('narwhal'))[0]!.category).toBe('Sea');
    expect((await suggest('narwh'))[0]!.category).toBe('Sea');
    await t.request('PUT', `/api/v1/skills/${skill.id}/skill.md`, {
      token: owner2.token,
      body: '---\ndescription: Finds tusks\n---\n',
      headers: { 'content-type': 'text/markdown' },
    });
    expect((await search('narwhal'))[0]!.description).toBe('Finds tusks');
    const copy = await t.container.skills.createFromSnapshot(owner2.id, { name: 'narwhal-copy', description: '', category: '', scriptContent: '' }, { type: 'installed' });
    expect((await search('narwhal')).map((s) => s.id).sort()).toEqual([skill.id, copy.id].sort());
    await t.request('DELETE', `/api/v1/skills/${copy.id}`, { token: owner2.token });
    expect((await search('narwhal')).map((s) => s.id)).toEqual([skill.id]);
    // A failed write changes nothing and is harmless.
    await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: owner2.token, body: { name: 'x y' } });
    expect((await search('narwhal')).map((s) => s.id)).toEqual([skill.id]);
  });

  it('answers the same summary for a skill until it changes, then its new fields, in new queries as in repeated ones', async () => {
    const owner3 = await t.createOwner('Summaries');
    const changing = await createSkill(owner3, { name: 'ibex-counter', description: 'Counts ibex herds', category: 'Alps' });
    const steady = await createSkill(owner3, { name: 'ibex-feeder', description: 'Feeds ibex herds', category: 'Alps' });
    const summaries = async (q: string) => (await t.container.skills.list(owner3.id, { q, limit: 20 })).skills;
    const first = await summaries('ibex');
    // A different query (not an answer served again): each skill's summary is the one made before.
    const second = await summaries('herds ibex');
    for (const id of [changing.id, steady.id]) expect(second.find((s) => s.id === id)).toBe(first.find((s) => s.id === id));
    const itemText = async (slug: string) => {
      const listed = await t.request('GET', '/api/v1/skills', { token: owner3.token, query: { slug } });
      return listed.text.slice('{"data":['.length, -'],"nextCursor":null}'.length);
    };
    const searchText = async (q: string) => (await t.request('GET', '/api/v1/skills', { token: owner3.token, query: { q } })).text;
    expect(await searchText('ibex her')).toBe(`{"data":[${[await itemText('ibex-counter'), await itemText('ibex-feeder')].join(',')}],"nextCursor":null}`);

    // A field the search does not look at, then one it does, each seen by the next new query.
    await t.request('POST', `/api/v1/skills/${changing.id}/activate`, { token: owner3.token });
    const activated = (await summaries('ibex herd')).find((s) => s.id === changing.id)!;
    expect(activated.active).toBe(true);
    expect(activated).not.toBe(first.find((s) => s.id === changing.id));
    await t.request('PUT', `/api/v1/skills/${changing.id}`, { token: owner3.token, body: { description: 'Counts ibex herds twice', category: 'Peaks' } });
    const changed = (await summaries('ibex h')).find((s) => s.id === changing.id)!;
    expect(changed).toMatchObject({ active: true, description: 'Counts ibex herds twice', category: 'Peaks' });
    // Now the longer description ranks it second.
    const text = await searchText('ibex herds');
    expect(text).toBe(`{"data":[${[await itemText('ibex-feeder'), await itemText('ibex-counter')].join(',')}],"nextCursor":null}`);
    expect(JSON.parse(text).data[1]).toMatchObject({ id: changing.id, active: true, category: 'Peaks' });
    await t.request('DELETE', `/api/v1/skills/${changing.id}`, { token: owner3.token });
    expect(JSON.parse(await searchText('ibe')).data.map((s: { id: number }) => s.id)).toEqual([steady.id]);
  });

  it('follows renames and deletes', async () => {
    const skill = await createSkill(owner, { name: 'quokka-finder' });
    await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: owner.token, body: { name: 'wombat-finder' } });
    expect((await t.request('GET', '/api/v1/skills?q=quokka', { token: owner.token })).body.data).toEqual([]);
    expect((await t.request('GET', '/api/v1/skills?q=wombat', { token: owner.token })).body.data.map((s: { id: number }) => s.id)).toEqual([skill.id]);
    await t.request('DELETE', `/api/v1/skills/${skill.id}`, { token: owner.token });
    expect((await t.request('GET', '/api/v1/skills?q=wombat', { token: owner.token })).body.data).toEqual([]);
  });
});

describe('GET /api/v1/skills/_by_slug/{slug} and /skills/_batch', () => {
  let a: { id: number; name: string };
  let b: { id: number; name: string };
  let bobs: { id: number; name: string };

  beforeAll(async () => {
    a = await createSkill(alice, { name: uniqueName('Batch-A') });
    b = await createSkill(alice, { name: uniqueName('batch-b') });
    bobs = await createSkill(bob, { name: uniqueName('batch-bob') });
  });

  it('finds a skill by slug in any case, with its SKILL.md', async () => {
    const res = await t.request('GET', `/api/v1/skills/_by_slug/${a.name.toUpperCase()}`, { token: alice.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(SKILL_KEYS);
    expect(res.body.data.id).toBe(a.id);
  });

  it('answers reflect every write at once, the slug read again before each write (answers may be cached on SQLite)', async () => {
    const name = uniqueName('Cached-Slug');
    const bySlug = async (slug: string, token = alice.token) => t.request('GET', `/api/v1/skills/_by_slug/${slug}`, { token });
    expectError(await bySlug(name), 404, 'NOT_FOUND');
    const skill = await createSkill(alice, { name, description: 'first words' });
    expect((await bySlug(name)).body.data).toEqual(skill);
    expect((await bySlug(name.toLowerCase())).body.data).toEqual(skill);
    // Bob's skill of the same name is his own answer, not Alice's.
    const his = await createSkill(bob, { name });
    expect((await bySlug(name, bob.token)).body.data.id).toBe(his.id);
    expect((await bySlug(name)).body.data.id).toBe(skill.id);

    await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: alice.token, body: { description: 'second words' } });
    expect((await bySlug(name)).body.data.description).toBe('second words');
    await t.request('POST', `/api/v1/skills/${skill.id}/activate`, { token: alice.token });
    expect((await bySlug(name.toUpperCase())).body.data.active).toBe(true);
    const renamed = uniqueName('Renamed-Slug');
    await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: alice.token, body: { name: renamed } });
    expectError(await bySlug(name), 404, 'NOT_FOUND');
    expect((await bySlug(renamed)).body.data.id).toBe(skill.id);
    await t.request('DELETE', `/api/v1/skills/${skill.id}`, { token: alice.token });
    expectError(await bySlug(renamed), 404, 'NOT_FOUND');
    expect((await bySlug(name, bob.token)).body.data.id).toBe(his.id);
  });

  it('answers 404 NOT_FOUND for an unknown slug and for another owner\'s', async () => {
    expectError(await t.request('GET', '/api/v1/skills/_by_slug/no-such-skill', { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `/api/v1/skills/_by_slug/${bobs.name}`, { token: alice.token }), 404, 'NOT_FOUND');
  });

  it('gets several by repeated ids and slugs, ignoring unknown and foreign ones', async () => {
    const res = await t.request(
      'GET',
      `/api/v1/skills/_batch?id=${a.id}&id=${bobs.id}&id=999999&slug=${b.name.toUpperCase()}&slug=${bobs.name}&slug=nope&id=${a.id}`,
      { token: alice.token },
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data.map((s: { id: number }) => s.id)).toEqual([a.id, b.id]);
    for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(SKILL_KEYS);
  });

  it('takes a single id or a single slug', async () => {
    const one = await t.request('GET', `/api/v1/skills/_batch?id=${b.id}`, { token: alice.token });
    expect(one.body.data.map((s: { id: number }) => s.id)).toEqual([b.id]);
    const slug = await t.request('GET', `/api/v1/skills/_batch?slug=${a.name}`, { token: alice.token });
    expect(slug.body.data.map((s: { id: number }) => s.id)).toEqual([a.id]);
    const none = await t.request('GET', '/api/v1/skills/_batch', { token: alice.token });
    expect(none.body).toEqual({ data: [] });
  });

  it('answers 400 for more than 200 ids and slugs together, and for non-integer ids', async () => {
    const ids = Array.from({ length: 150 }, (_, i) => `id=${i + 1}`).join('&');
    const slugs = Array.from({ length: 51 }, (_, i) => `slug=s${i}`).join('&');
    expectError(await t.request('GET', `/api/v1/skills/_batch?${ids}&${slugs}`, { token: alice.token }), 400, 'VALIDATION_ERROR');
    const tooManyIds = Array.from({ length: 201 }, (_, i) => `id=${i + 1}`).join('&');
    expectError(await t.request('GET', `/api/v1/skills/_batch?${tooManyIds}`, { token: alice.token }), 400, 'VALIDATION_ERROR');
    const exactly = Array.from({ length: 200 }, (_, i) => `id=${i + 1}`).join('&');
    expect((await t.request('GET', `/api/v1/skills/_batch?${exactly}`, { token: alice.token })).status).toBe(200);
    expectError(await t.request('GET', '/api/v1/skills/_batch?id=abc', { token: alice.token }), 400, 'VALIDATION_ERROR');
  });
});

describe('GET, PUT, DELETE /api/v1/skills/{id}', () => {
  it('answers 400 for a non-integer id and 404 for an unknown one', async () => {
    for (const id of ['abc', '1.5', '0', '-3', '99999999999', '1e3x']) {
      expectError(await t.request('GET', `/api/v1/skills/${id}`, { token: alice.token }), 400, 'VALIDATION_ERROR');
    }
    expectError(await t.request('GET', '/api/v1/skills/987654', { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PUT', '/api/v1/skills/987654', { token: alice.token, body: { category: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', '/api/v1/skills/987654', { token: alice.token }), 404, 'NOT_FOUND');
  });

  it('updates some fields and keeps the frontmatter in step with the record', async () => {
    const skill = await createSkill(alice, { name: uniqueName('upd'), description: 'Old', scriptContent: '---\nlicense: MIT\n---\n# Body\n' });
    const res = await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: alice.token, body: { description: 'New', category: 'Tools' } });
    expect(res.status).toBe(200);
    const updated = res.body.data;
    expect(updated).toMatchObject({ id: skill.id, name: skill.name, description: 'New', category: 'Tools', active: false });
    expect(updated.createdAt).toBe(skill.createdAt);
    expect(updated.updatedAt >= skill.updatedAt).toBe(true);
    expect(frontmatterOf(updated.scriptContent)).toEqual({ name: skill.name, description: 'New', license: 'MIT' });
    expect(updated.scriptContent.endsWith('# Body\n')).toBe(true);

    const script = await t.request('PUT', `/api/v1/skills/${skill.id}`, {
      token: alice.token,
      body: { scriptContent: '---\nname: evil\ndescription: ignored\nx: 1\n---\nNew body', active: true },
    });
    expect(script.body.data.active).toBe(true);
    expect(script.body.data.description).toBe('New');
    expect(frontmatterOf(script.body.data.scriptContent)).toEqual({ name: skill.name, description: 'New' });

    // An explicit empty description clears it; the frontmatter's is not taken back.
    const cleared = await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: alice.token, body: { description: '' } });
    expect(cleared.body.data.description).toBe('');
    expect(frontmatterOf(cleared.body.data.scriptContent).description).toBe('');
  });

  it('renames: the slug follows, 409 when the new name is taken in any case, a case change of its own name is fine', async () => {
    const taken = await createSkill(alice, { name: uniqueName('Taken') });
    const skill = await createSkill(alice, { name: uniqueName('rename') });
    const newName = uniqueName('Renamed');
    const res = await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: alice.token, body: { name: newName } });
    expect(res.status).toBe(200);
    expect(res.body.data.slug).toBe(newName);
    expect(frontmatterOf(res.body.data.scriptContent).name).toBe(newName);
    expect((await t.request('GET', `/api/v1/skills/_by_slug/${newName}`, { token: alice.token })).body.data.id).toBe(skill.id);
    expectError(await t.request('GET', `/api/v1/skills/_by_slug/${skill.name}`, { token: alice.token }), 404, 'NOT_FOUND');

    expectError(
      await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: alice.token, body: { name: taken.name.toLowerCase() } }),
      409,
      'CONFLICT',
    );
    const caseOnly = await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: alice.token, body: { name: newName.toUpperCase() } });
    expect(caseOnly.status).toBe(200);
    expect(caseOnly.body.data.slug).toBe(newName.toUpperCase());
  });

  it('answers 400 for an empty or invalid update', async () => {
    const skill = await createSkill(alice, { name: uniqueName() });
    expectError(await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: alice.token, body: {} }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: alice.token, body: { name: 'no spaces' } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PUT', `/api/v1/skills/${skill.id}`, { token: alice.token, body: { active: 'maybe' } }), 400, 'VALIDATION_ERROR');
  });

  it('deletes a skill with its attachments', async () => {
    const skill = await createSkill(alice, { name: uniqueName('del') });
    const docId = await insertDocument(alice, uniqueName('doc'));
    expect((await t.request('POST', `/api/v1/skills/${skill.id}/documents`, { token: alice.token, body: { documentId: docId } })).status).toBe(201);
    const res = await t.request('DELETE', `/api/v1/skills/${skill.id}`, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: skill.id, deleted: true } });
    expectError(await t.request('GET', `/api/v1/skills/${skill.id}`, { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/skills/${skill.id}`, { token: alice.token }), 404, 'NOT_FOUND');
    const links = await t.storage.db.selectFrom('skill_documents').select('document_id').where('skill_id', '=', skill.id).execute();
    expect(links).toEqual([]);
    // The document itself stays.
    expect(await t.storage.db.selectFrom('kb_documents').select('id').where('id', '=', docId).executeTakeFirst()).toBeDefined();
  });
});

describe('the SKILL.md: /content and /skill.md', () => {
  let skill: { id: number; name: string; slug: string; scriptContent: string };

  beforeAll(async () => {
    skill = await createSkill(alice, { name: uniqueName('md'), description: 'Markdown skill', scriptContent: '# Steps\n\n1. Do it\n' });
  });

  it('answers JSON { id, slug, name, content } by default and for JSON or wildcard Accept', async () => {
    for (const accept of [undefined, 'application/json', '*/*', 'text/markdown;q=0.5, application/json', 'text/html']) {
      const res = await t.request('GET', `/api/v1/skills/${skill.id}/content`, { token: alice.token, headers: accept ? { accept } : {} });
      expect(res.status).toBe(200);
      expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
      expect(res.body).toEqual({ data: { id: skill.id, slug: skill.slug, name: skill.name, content: skill.scriptContent } });
      expect(String(res.headers.vary)).toMatch(/accept/i);
    }
  });

  it('answers the raw markdown for Accept: text/markdown', async () => {
    for (const accept of ['text/markdown', 'text/markdown, application/json;q=0.9', 'text/*', 'text/markdown, */*']) {
      const res = await t.request('GET', `/api/v1/skills/${skill.id}/content`, { token: alice.token, headers: { accept } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(res.text).toBe(skill.scriptContent);
    }
    const raw = await t.request('GET', `/api/v1/skills/${skill.id}/skill.md`, { token: alice.token });
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(raw.text).toBe(skill.scriptContent);
  });

  it('answers errors as JSON even when markdown is asked for', async () => {
    const res = await t.request('GET', '/api/v1/skills/987654/content', { token: alice.token, headers: { accept: 'text/markdown' } });
    expectError(res, 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/api/v1/skills/987654/skill.md', { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/api/v1/skills/abc/skill.md', { token: alice.token }), 400, 'VALIDATION_ERROR');
  });

  it('replaces the SKILL.md from a raw text/markdown body, sanitized, and reads back the same', async () => {
    const hostile = [
      '\uFEFF---',
      'name: not-the-record',
      'description: &d "anchored"',
      'license: Apache-2.0',
      'metadata:',
      '  author: me',
      '  evil: *d',
      '  tag: !!js/function "function () {}"',
      'x-run: !!python/object/apply:os.system ["id"]',
      '---',
      '# New body',
      '',
      '---',
      'not: frontmatter',
      '',
    ].join('\r\n');
    const res = await t.request('PUT', `/api/v1/skills/${skill.id}/skill.md`, {
      token: alice.token,
      body: hostile,
      headers: { 'content-type': 'text/markdown; charset=utf-8' },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(SKILL_KEYS);
    const stored = res.body.data.scriptContent as string;
    expect(frontmatterOf(stored)).toEqual({
      name: skill.name,
      description: 'Markdown skill',
      license: 'Apache-2.0',
      metadata: { author: 'me', tag: 'function () {}' },
    });
    expect(stored.endsWith('---\n# New body\n\n---\nnot: frontmatter\n')).toBe(true);
    expect(stored).not.toContain('\r');
    expect(stored).not.toContain('python');

    const back = await t.request('GET', `/api/v1/skills/${skill.id}/skill.md`, { token: alice.token });
    expect(back.text).toBe(stored);
    // Putting back what was read changes nothing.
    const again = await t.request('PUT', `/api/v1/skills/${skill.id}/skill.md`, { token: alice.token, body: back.text, headers: { 'content-type': 'text/markdown' } });
    expect(again.body.data.scriptContent).toBe(stored);
  });

  it('takes text/plain too, adopts a description when the skill has none, and gives a bare body a frontmatter', async () => {
    const bare = await createSkill(alice, { name: uniqueName('plain') });
    const res = await t.request('PUT', `/api/v1/skills/${bare.id}/skill.md`, {
      token: alice.token,
      body: '---\ndescription: Learned from the file\n---\nText',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.description).toBe('Learned from the file');
    expect(frontmatterOf(res.body.data.scriptContent)).toEqual({ name: bare.name, description: 'Learned from the file' });

    const body = await t.request('PUT', `/api/v1/skills/${bare.id}/skill.md`, { token: alice.token, body: 'Just text', headers: { 'content-type': 'text/markdown' } });
    expect(body.body.data.scriptContent).toBe(`---\nname: ${bare.name}\ndescription: Learned from the file\n---\n\nJust text`);
  });

  it('refuses NUL characters (400) everywhere they could reach the database, and drops an escaped one from an adopted description', async () => {
    const nul = '\u0000';
    expectError(await t.request('POST', '/api/v1/skills', { token: alice.token, body: { name: uniqueName(), description: `a${nul}b` } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', '/api/v1/skills', { token: alice.token, body: { name: uniqueName(), category: nul } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', '/api/v1/skills', { token: alice.token, body: { name: uniqueName(), scriptContent: `# x${nul}` } }), 400, 'VALIDATION_ERROR');
    expectError(
      await t.request('PUT', `/api/v1/skills/${skill.id}/skill.md`, { token: alice.token, body: `# x${nul}`, headers: { 'content-type': 'text/markdown' } }),
      400,
      'VALIDATION_ERROR',
    );
    for (const url of ['/api/v1/skills?slug=%00', '/api/v1/skills?category=a%00', '/api/v1/skills/_batch?slug=%00', '/api/v1/skills/_by_slug/a%00b', `/api/v1/skills/${skill.id}/documents/doc%00`]) {
      const res = await t.request(url.includes('/documents/') ? 'DELETE' : 'GET', url, { token: alice.token });
      expectError(res, 400, 'VALIDATION_ERROR');
    }
    expect((await t.request('GET', '/api/v1/skills?q=%00', { token: alice.token })).body.data).toEqual([]);

    const bare = await createSkill(alice, { name: uniqueName('nul') });
    const res = await t.request('PUT', `/api/v1/skills/${bare.id}/skill.md`, {
      token: alice.token,
      body: '---\ndescription: "a\\0b"\nlicense: "x\\0y"\n---\n',
      headers: { 'content-type': 'text/markdown' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.description).toBe('ab');
    expect(res.body.data.scriptContent).not.toContain(nul);
    expect(frontmatterOf(res.body.data.scriptContent).license).toBe(`x${nul}y`);
  });

  it('refuses JSON (415), a missing body (400) and an oversized one (400)', async () => {
    expectError(
      await t.request('PUT', `/api/v1/skills/${skill.id}/skill.md`, { token: alice.token, body: { scriptContent: 'x' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectError(await t.request('PUT', `/api/v1/skills/${skill.id}/skill.md`, { token: alice.token }), 400, 'VALIDATION_ERROR');
    expectError(
      await t.request('PUT', `/api/v1/skills/${skill.id}/skill.md`, {
        token: alice.token,
        body: 'x'.repeat(256 * 1024 + 1),
        headers: { 'content-type': 'text/markdown' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await t.request('PUT', '/api/v1/skills/987654/skill.md', { token: alice.token, body: '# x', headers: { 'content-type': 'text/markdown' } }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('activate and deactivate, and the gateway context section', () => {
  it('switches a skill on and off; the context section lists the active ones only', async () => {
    const owner = await t.createOwner('Activator');
    const one = await createSkill(owner, { name: 'one', description: 'First', category: 'A' });
    const two = await createSkill(owner, { name: 'two' });
    const on = await t.request('POST', `/api/v1/skills/${one.id}/activate`, { token: owner.token });
    expect(on.status).toBe(200);
    expect(Object.keys(on.body.data).sort()).toEqual(SKILL_KEYS);
    expect(on.body.data.active).toBe(true);
    expect((await t.request('POST', `/api/v1/skills/${one.id}/activate`, { token: owner.token })).body.data.active).toBe(true);
    await t.request('POST', `/api/v1/skills/${two.id}/activate`, { token: owner.token });
    const off = await t.request('POST', `/api/v1/skills/${two.id}/deactivate`, { token: owner.token });
    expect(off.body.data.active).toBe(false);

    const section = createSkillsContextSection(t.container.skills);
    expect(section.name).toBe('skills');
    expect(await section.load(owner.id, {} as Principal)).toEqual([{ id: one.id, slug: 'one', name: 'one', description: 'First', category: 'A' }]);
    const base: Principal = { tokenId: 't', ownerId: owner.id, kind: 'api', allScopes: false, scopes: new Set(), role: 'user', name: 'test', agent: null };
    expect(section.visibleTo({ ...base, scopes: new Set(['skills']) })).toBe(true);
    expect(section.visibleTo({ ...base, scopes: new Set(['memory']) })).toBe(false);
    expect(section.visibleTo({ ...base, kind: 'master', allScopes: true })).toBe(true);

    expectError(await t.request('POST', '/api/v1/skills/987654/activate', { token: owner.token }), 404, 'NOT_FOUND');
  });
});

describe('documents and attachments of a skill', () => {
  it('attaches (201 new, 200 again), lists and detaches documents', async () => {
    const skill = await createSkill(alice, { name: uniqueName('docs') });
    const docId = await insertDocument(alice, uniqueName('Guide'));
    const first = await t.request('POST', `/api/v1/skills/${skill.id}/documents`, { token: alice.token, body: { documentId: docId } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ data: { attached: true, created: true } });
    const again = await t.request('POST', `/api/v1/skills/${skill.id}/documents`, { token: alice.token, body: { documentId: docId } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ data: { attached: true, created: false } });

    const list = await t.request('GET', `/api/v1/skills/${skill.id}/documents`, { token: alice.token });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ id: docId, source: 'agent', sizeBytes: 10 });
    expect(list.body.data[0].attachedAt).toMatch(ISO);

    const detach = await t.request('DELETE', `/api/v1/skills/${skill.id}/documents/${docId}`, { token: alice.token });
    expect(detach.status).toBe(200);
    expect(detach.body).toEqual({ data: { detached: true } });
    expectError(await t.request('DELETE', `/api/v1/skills/${skill.id}/documents/${docId}`, { token: alice.token }), 404, 'NOT_FOUND');
    expect((await t.request('GET', `/api/v1/skills/${skill.id}/documents`, { token: alice.token })).body).toEqual({ data: [] });
    expectError(await t.request('POST', `/api/v1/skills/${skill.id}/documents`, { token: alice.token, body: {} }), 400, 'VALIDATION_ERROR');
  });

  it('refuses another owner\'s document with 404 and attaches nothing', async () => {
    const skill = await createSkill(alice, { name: uniqueName('foreign-doc') });
    const bobsDoc = await insertDocument(bob, uniqueName('Secret'));
    expectError(
      await t.request('POST', `/api/v1/skills/${skill.id}/documents`, { token: alice.token, body: { documentId: bobsDoc } }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await t.request('POST', `/api/v1/skills/${skill.id}/documents`, { token: alice.token, body: { documentId: 'doc_nope' } }),
      404,
      'NOT_FOUND',
    );
    expect((await t.request('GET', `/api/v1/skills/${skill.id}/documents`, { token: alice.token })).body).toEqual({ data: [] });
  });

  it('lists the personas the skill is attached to', async () => {
    const skill = await createSkill(alice, { name: uniqueName('attached') });
    const personaId = await insertPersona(alice, 'Helper');
    expect((await t.request('GET', `/api/v1/skills/${skill.id}/attachments`, { token: alice.token })).body).toEqual({ data: [] });
    await t.container.attachments.attachSkillToPersona(alice.id, personaId, skill.id);
    const res = await t.request('GET', `/api/v1/skills/${skill.id}/attachments`, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ id: personaId, name: 'Helper', active: false });
    expect(res.body.data[0].attachedAt).toMatch(ISO);
  });
});

describe('the marketplace entry points', () => {
  it('creates from a snapshot with its origin, sanitized, and 409 when the name is taken', async () => {
    const owner = await t.createOwner('Installer');
    const origin = { type: 'installed', listingId: 'lst_1', installedAt: isoNow() };
    const skill = await t.container.skills.createFromSnapshot(
      owner.id,
      { name: 'Shared-Skill', description: '', category: 'Shared', scriptContent: '---\ndescription: From the listing\nfoo: bar\n---\nBody' },
      origin,
    );
    expect(skill.origin).toEqual(origin);
    expect(skill.description).toBe('From the listing');
    expect(frontmatterOf(skill.scriptContent)).toEqual({ name: 'Shared-Skill', description: 'From the listing' });
    expect(await t.container.skills.getForOwner(owner.id, skill.id)).toEqual(skill);
    const listed = await t.request('GET', '/api/v1/skills', { token: owner.token });
    expect(listed.body.data[0].origin).toEqual(origin);
    await expect(t.container.skills.createFromSnapshot(owner.id, { name: 'shared-skill', description: '', category: '', scriptContent: '' }, origin)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(t.container.skills.getForOwner(alice.id, skill.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('security', () => {
  let skillId: number;
  let bobsSkillId: number;
  let aliceDoc: string;

  beforeAll(async () => {
    skillId = (await createSkill(alice, { name: uniqueName('sec') })).id;
    bobsSkillId = (await createSkill(bob, { name: uniqueName('bobsec') })).id;
    aliceDoc = await insertDocument(alice, uniqueName('SecDoc'));
  });

  const routes = (id: number): Array<{ method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; body?: unknown; headers?: Record<string, string> }> => [
    { method: 'GET', url: '/api/v1/skills' },
    { method: 'POST', url: '/api/v1/skills', body: { name: uniqueName('x') } },
    { method: 'GET', url: '/api/v1/skills/suggestions?q=sec' },
    { method: 'GET', url: '/api/v1/skills/_by_slug/sec' },
    { method: 'GET', url: `/api/v1/skills/_batch?id=${id}` },
    { method: 'GET', url: `/api/v1/skills/${id}` },
    { method: 'PUT', url: `/api/v1/skills/${id}`, body: { category: 'changed' } },
    { method: 'DELETE', url: `/api/v1/skills/${id}` },
    { method: 'GET', url: `/api/v1/skills/${id}/content` },
    { method: 'GET', url: `/api/v1/skills/${id}/skill.md` },
    { method: 'PUT', url: `/api/v1/skills/${id}/skill.md`, body: '# hacked', headers: { 'content-type': 'text/markdown' } },
    { method: 'POST', url: `/api/v1/skills/${id}/activate` },
    { method: 'POST', url: `/api/v1/skills/${id}/deactivate` },
    { method: 'GET', url: `/api/v1/skills/${id}/documents` },
    { method: 'POST', url: `/api/v1/skills/${id}/documents`, body: { documentId: 'doc_x' } },
    { method: 'DELETE', url: `/api/v1/skills/${id}/documents/doc_x` },
    { method: 'GET', url: `/api/v1/skills/${id}/attachments` },
  ];

  it('answers 401 UNAUTHORIZED without a token or with a bad one, on every route', async () => {
    for (const route of routes(skillId)) {
      const res = await t.request(route.method, route.url, { body: route.body, ...(route.headers ? { headers: route.headers } : {}) });
      expectError(res, 401, 'UNAUTHORIZED');
      const bad = await t.request(route.method, route.url, { token: 'hth_pat_nope', body: route.body, ...(route.headers ? { headers: route.headers } : {}) });
      expectError(bad, 401, 'UNAUTHORIZED');
    }
  });

  it('answers 403 INSUFFICIENT_SCOPE to a token without skills, on every route', async () => {
    const token = await t.tokenWithScopes(alice, ['memory', 'personas', 'knowledge']);
    for (const route of routes(skillId)) {
      const res = await t.request(route.method, route.url, { token, body: route.body, ...(route.headers ? { headers: route.headers } : {}) });
      const body = expectError(res, 403, 'INSUFFICIENT_SCOPE');
      expect(body.message).toContain('skills');
    }
    expect((await t.request('GET', `/api/v1/skills/${skillId}`, { token: alice.token })).body.data.category).toBe('');
  });

  it('serves a token holding only skills', async () => {
    const token = await t.tokenWithScopes(alice, ['skills']);
    expect((await t.request('GET', `/api/v1/skills/${skillId}`, { token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/skills', { token })).status).toBe(200);
  });

  it('answers 404 NOT_FOUND for another owner\'s skill on every route that takes an id, and changes nothing', async () => {
    const before = await t.request('GET', `/api/v1/skills/${bobsSkillId}`, { token: bob.token });
    for (const route of routes(bobsSkillId).filter((r) => r.url.includes(`/${bobsSkillId}`))) {
      const res = await t.request(route.method, route.url, { token: alice.token, body: route.body, ...(route.headers ? { headers: route.headers } : {}) });
      expectError(res, 404, 'NOT_FOUND');
    }
    expectError(
      await t.request('POST', `/api/v1/skills/${bobsSkillId}/documents`, { token: alice.token, body: { documentId: aliceDoc } }),
      404,
      'NOT_FOUND',
    );
    const batch = await t.request('GET', `/api/v1/skills/_batch?id=${bobsSkillId}`, { token: alice.token });
    expect(batch.body).toEqual({ data: [] });
    const after = await t.request('GET', `/api/v1/skills/${bobsSkillId}`, { token: bob.token });
    expect(after.body).toEqual(before.body);
  });
});

describe('the OpenAPI document', () => {
  it('documents every skills operation once, both content types of /content and the markdown body of PUT skill.md', async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<
      string,
      Record<string, { operationId?: string; tags?: string[]; responses?: any; requestBody?: any; security?: unknown; 'x-required-scopes'?: unknown }>
    >;
    const operations = Object.entries(paths)
      .filter(([path]) => path.startsWith('/api/v1/skills'))
      .flatMap(([, methods]) => Object.values(methods));
    const ids = operations.map((op) => op.operationId);
    expect(ids.sort()).toEqual(
      [
        'listSkills',
        'createSkill',
        'getSkillSuggestions',
        'getSkillBySlug',
        'batchGetSkills',
        'getSkill',
        'updateSkill',
        'deleteSkill',
        'getSkillContent',
        'getSkillMarkdown',
        'putSkillMarkdown',
        'activateSkill',
        'deactivateSkill',
        'listSkillDocuments',
        'attachSkillDocument',
        'detachSkillDocument',
        'listSkillAttachments',
      ].sort(),
    );
    for (const op of operations) expect(op.tags).toEqual(['skills']);

    const content = paths['/api/v1/skills/{id}/content']!.get!.responses['200'].content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'text/markdown']);
    expect(content['text/markdown'].schema.type).toBe('string');
    expect(paths['/api/v1/skills/{id}/skill.md']!.get!.responses['200'].content['text/markdown'].schema.type).toBe('string');
    const put = paths['/api/v1/skills/{id}/skill.md']!.put!;
    expect(put.requestBody.content['text/markdown'].schema.type).toBe('string');
    // Scope lists belong to OAuth schemes only: the scope is stated in x-required-scopes.
    expect(paths['/api/v1/skills/{id}']!.get!.security).toEqual([{ bearerAuth: [] }, { queryToken: [] }]);
    expect(paths['/api/v1/skills/{id}']!.get!['x-required-scopes']).toEqual(['skills']);
  });
});
