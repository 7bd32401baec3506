import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type ApiResponse, type Owner, type TestApp } from '../../../test/harness.js';
import { createKnowledgeContextSection } from './knowledge.context.js';

const BASE = '/api/v1/brain/knowledge-base';
const MiB = 1024 * 1024;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let t: TestApp;
let owner: Owner;
let other: Owner;
let titleCounter = 0;
const uniqueTitle = (prefix = 'Doc') => `${prefix} ${++titleCounter}`;

async function createDoc(who: Owner, body: Record<string, unknown>) {
  const res = await t.request('POST', BASE, { token: who.token, body });
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.data as { id: string; title: string; content: string; source: string };
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Knowledge owner');
  other = await t.createOwner('Someone else');
});
afterAll(async () => t.close());

describe('happy path', () => {
  it('creates a document (200) and reads it back', async () => {
    const created = await t.request('POST', BASE, {
      token: owner.token,
      body: { title: '  Travel notes  ', content: '# Lisbon\n\nTram 28 is worth it. Café com leite.' },
    });
    expect(created.status).toBe(200);
    const doc = created.body.data;
    expect(doc).toEqual({
      id: expect.stringMatching(/^doc_[0-9A-HJKMNP-TV-Z]{26}$/),
      title: 'Travel notes',
      content: '# Lisbon\n\nTram 28 is worth it. Café com leite.',
      source: 'agent',
      mimeType: 'text/markdown',
      sizeBytes: Buffer.byteLength('# Lisbon\n\nTram 28 is worth it. Café com leite.'),
      // Text sent as JSON: no file.
      fileBytes: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: doc.createdAt,
    });

    const got = await t.request('GET', `${BASE}/${doc.id}`, { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ data: doc });
  });

  it('keeps a given source', async () => {
    const doc = await createDoc(owner, { title: uniqueTitle(), content: 'x', source: 'web' });
    expect(doc.source).toBe('web');
  });

  it('lists documents newest first with an excerpt and no content', async () => {
    const long = `${'word '.repeat(100)}end`;
    const first = await createDoc(owner, { title: uniqueTitle('Listed'), content: 'short text' });
    const second = await createDoc(owner, { title: uniqueTitle('Listed'), content: long });
    const res = await t.request('GET', BASE, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    const ids = res.body.data.map((d: { id: string }) => d.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    expect(ids).toEqual([...ids].sort().reverse());
    const item = res.body.data.find((d: { id: string }) => d.id === second.id);
    expect(Object.keys(item).sort()).toEqual(['createdAt', 'excerpt', 'fileBytes', 'id', 'mimeType', 'sizeBytes', 'source', 'title', 'updatedAt']);
    expect(item.excerpt.length).toBeLessThanOrEqual(201);
    expect(item.excerpt.length).toBeGreaterThan(150);
    expect(item.excerpt.endsWith('…')).toBe(true);
    expect(res.body.data.find((d: { id: string }) => d.id === first.id).excerpt).toBe('short text');
  });

  it('updates content, title and source with PUT', async () => {
    const doc = await createDoc(owner, { title: uniqueTitle(), content: 'old', source: 'web' });
    const res = await t.request('PUT', `${BASE}/${doc.id}`, { token: owner.token, body: { content: 'new content', title: ' Renamed doc ' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: doc.id, title: 'Renamed doc', content: 'new content', source: 'web', sizeBytes: 11 });
    expect(res.body.data.updatedAt >= res.body.data.createdAt).toBe(true);
    const withSource = await t.request('PUT', `${BASE}/${doc.id}`, { token: owner.token, body: { content: 'again', source: 'manual' } });
    expect(withSource.body.data).toMatchObject({ title: 'Renamed doc', content: 'again', source: 'manual' });
  });

  it('deletes a document', async () => {
    const doc = await createDoc(owner, { title: uniqueTitle(), content: 'bye' });
    const res = await t.request('DELETE', `${BASE}/${doc.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: doc.id, deleted: true } });
    expectError(await t.request('GET', `${BASE}/${doc.id}`, { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `${BASE}/${doc.id}`, { token: owner.token }), 404, 'NOT_FOUND');
  });

  it('shows attachment usage, and deleting the document detaches it', async () => {
    const doc = await createDoc(owner, { title: uniqueTitle(), content: 'attached text' });
    const empty = await t.request('GET', `${BASE}/${doc.id}/attachments`, { token: owner.token });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ data: { documentId: doc.id, personas: [], skills: [] } });

    const persona = await t.request('POST', '/api/v1/personas', { token: owner.token, body: { name: 'Guide', soul_content: 'Helpful' } });
    expect(persona.status).toBe(201);
    const personaId = persona.body.data.id;
    const attached = await t.request('POST', `/api/v1/personas/${personaId}/documents`, { token: owner.token, body: { documentId: doc.id } });
    expect([200, 201]).toContain(attached.status);

    const usage = await t.request('GET', `${BASE}/${doc.id}/attachments`, { token: owner.token });
    expect(usage.status).toBe(200);
    expect(usage.body.data.personas).toEqual([{ id: personaId, name: 'Guide', active: expect.any(Boolean), attachedAt: expect.stringMatching(ISO) }]);

    expect((await t.request('DELETE', `${BASE}/${doc.id}`, { token: owner.token })).status).toBe(200);
    const docs = await t.request('GET', `/api/v1/personas/${personaId}/documents`, { token: owner.token });
    expect(docs.status).toBe(200);
    expect(docs.body.data).toEqual([]);
  });

  it('accepts content over the global 1 MiB body limit', async () => {
    const content = 'a'.repeat(Math.floor(1.5 * MiB));
    const res = await t.request('POST', BASE, { token: owner.token, body: { title: uniqueTitle('Big'), content } });
    expect(res.status).toBe(200);
    expect(res.body.data.sizeBytes).toBe(content.length);
  });
});

describe('upsert', () => {
  it('answers exactly { ok, action, document: { id, title } }: created, then updated', async () => {
    const title = uniqueTitle('Upserted');
    const first = await t.request('POST', `${BASE}/upsert`, { token: owner.token, body: { title, content: 'v1', source: 'sync' } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ok: true, action: 'created', document: { id: expect.stringMatching(/^doc_/), title } });
    expect(Object.keys(first.body).sort()).toEqual(['action', 'document', 'ok']);
    expect(Object.keys(first.body.document).sort()).toEqual(['id', 'title']);

    const second = await t.request('POST', `${BASE}/upsert`, { token: owner.token, body: { title: `  ${title}  `, content: 'version two' } });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ ok: true, action: 'updated', document: { id: first.body.document.id, title } });

    const doc = await t.request('GET', `${BASE}/${first.body.document.id}`, { token: owner.token });
    // The source given at creation stays when an update does not name one.
    expect(doc.body.data).toMatchObject({ title, content: 'version two', source: 'sync', sizeBytes: 11 });
  });

  it('defaults the source to agent', async () => {
    const res = await t.request('POST', `${BASE}/upsert`, { token: owner.token, body: { title: uniqueTitle(), content: 'c' } });
    const doc = await t.request('GET', `${BASE}/${res.body.document.id}`, { token: owner.token });
    expect(doc.body.data.source).toBe('agent');
  });

  it('makes one document of concurrent upserts of a new title: one created, the rest updated', async () => {
    const title = uniqueTitle('Raced');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.request('POST', `${BASE}/upsert`, { token: owner.token, body: { title, content: `writer ${i}` } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const actions = results.map((r) => r.body.action);
    expect(actions.filter((a) => a === 'created')).toHaveLength(1);
    expect(actions.filter((a) => a === 'updated')).toHaveLength(7);
    expect(new Set(results.map((r) => r.body.document.id)).size).toBe(1);

    const list = await t.request('GET', BASE, { token: owner.token, query: { limit: 200 } });
    expect(list.body.data.filter((d: { title: string }) => d.title === title)).toHaveLength(1);
  });

  it('lets two owners use the same title', async () => {
    const title = uniqueTitle('Shared title');
    const mine = await t.request('POST', `${BASE}/upsert`, { token: owner.token, body: { title, content: 'mine' } });
    const theirs = await t.request('POST', `${BASE}/upsert`, { token: other.token, body: { title, content: 'theirs' } });
    expect(mine.body.action).toBe('created');
    expect(theirs.body.action).toBe('created');
    expect(mine.body.document.id).not.toBe(theirs.body.document.id);
  });
});

describe('errors', () => {
  it('answers 400 for a missing title or content, a blank title, or an unknown field', async () => {
    for (const path of [BASE, `${BASE}/upsert`]) {
      const noTitle = expectError(await t.request('POST', path, { token: owner.token, body: { content: 'x' } }), 400, 'VALIDATION_ERROR');
      expect(noTitle.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'body.title' })]));
      const noContent = expectError(await t.request('POST', path, { token: owner.token, body: { title: 'x' } }), 400, 'VALIDATION_ERROR');
      expect(noContent.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'body.content' })]));
      const blank = expectError(await t.request('POST', path, { token: owner.token, body: { title: '   ', content: 'x' } }), 400, 'VALIDATION_ERROR');
      expect(blank.details).toEqual([{ field: 'body.title', message: 'must not be blank' }]);
      expectError(await t.request('POST', path, { token: owner.token, body: { title: 'x'.repeat(501), content: 'x' } }), 400, 'VALIDATION_ERROR');
      expectError(await t.request('POST', path, { token: owner.token, body: { title: 'x', content: 'x', tags: [] } }), 400, 'VALIDATION_ERROR');
      expectError(await t.request('POST', path, { token: owner.token }), 400, 'VALIDATION_ERROR');
    }
    const doc = await createDoc(owner, { title: uniqueTitle(), content: 'x' });
    expectError(await t.request('PUT', `${BASE}/${doc.id}`, { token: owner.token, body: { title: 'no content' } }), 400, 'VALIDATION_ERROR');
  });

  it('answers 409 naming the upsert endpoint when a title exists', async () => {
    const title = uniqueTitle('Taken');
    const doc = await createDoc(owner, { title, content: 'one' });
    const res = expectError(await t.request('POST', BASE, { token: owner.token, body: { title, content: 'two' } }), 409, 'CONFLICT');
    expect(res.message).toContain('/api/v1/brain/knowledge-base/upsert');
    expect(res.details).toMatchObject({ existingId: doc.id });
  });

  it('answers 409 when PUT renames to a title in use', async () => {
    const a = await createDoc(owner, { title: uniqueTitle(), content: 'a' });
    const b = await createDoc(owner, { title: uniqueTitle(), content: 'b' });
    expectError(await t.request('PUT', `${BASE}/${b.id}`, { token: owner.token, body: { content: 'b2', title: a.title } }), 409, 'CONFLICT');
    const unchanged = await t.request('GET', `${BASE}/${b.id}`, { token: owner.token });
    expect(unchanged.body.data.content).toBe('b');
  });

  it('answers 404 for an unknown id on every route that takes one', async () => {
    const id = 'doc_01HZZZZZZZZZZZZZZZZZZZZZZZ';
    expectError(await t.request('GET', `${BASE}/${id}`, { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PUT', `${BASE}/${id}`, { token: owner.token, body: { content: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `${BASE}/${id}`, { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${BASE}/${id}/attachments`, { token: owner.token }), 404, 'NOT_FOUND');
  });

  it('answers 413 for content over 10 MiB, on create, upsert and update', async () => {
    const doc = await createDoc(owner, { title: uniqueTitle(), content: 'small' });
    const justOver = 'a'.repeat(10 * MiB + 1);
    const multiByte = 'é'.repeat(5 * MiB + 1); // 5 Mi characters, but 10 MiB + 2 bytes
    for (const content of [justOver, multiByte]) {
      expectError(await t.request('POST', BASE, { token: owner.token, body: { title: uniqueTitle(), content } }), 413, 'PAYLOAD_TOO_LARGE');
      expectError(await t.request('POST', `${BASE}/upsert`, { token: owner.token, body: { title: uniqueTitle(), content } }), 413, 'PAYLOAD_TOO_LARGE');
      expectError(await t.request('PUT', `${BASE}/${doc.id}`, { token: owner.token, body: { content } }), 413, 'PAYLOAD_TOO_LARGE');
    }
    // Beyond the route's 11 MiB body limit the framework refuses the body itself, in the same shape.
    const huge = JSON.stringify({ title: uniqueTitle(), content: 'a'.repeat(12 * MiB) });
    const res = await t.request('POST', BASE, { token: owner.token, body: huge, headers: { 'content-type': 'application/json' } });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('accepts exactly 10 MiB of content', async () => {
    const content = 'b'.repeat(10 * MiB);
    const res = await t.request('POST', `${BASE}/upsert`, { token: owner.token, body: { title: uniqueTitle('Ten'), content } });
    expect(res.status).toBe(200);
    expect(res.body.action).toBe('created');
    // Large documents stay out of lists: only the excerpt is sent.
    const list = await t.request('GET', BASE, { token: owner.token, query: { limit: 1 } });
    expect(list.text.length).toBeLessThan(2000);
  });

  it('answers 415 to a form sent to a JSON route', async () => {
    const res = await t.request('POST', BASE, {
      token: owner.token,
      body: Buffer.from('--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--b--\r\n'),
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 400, on both engines alike, for NUL characters that PostgreSQL text cannot hold', async () => {
    expectError(await t.request('POST', BASE, { token: owner.token, body: { title: uniqueTitle(), content: 'a\u0000b' } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', `${BASE}/upsert`, { token: owner.token, body: { title: 'a\u0000b', content: 'x' } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('GET', `${BASE}/doc_%00`, { token: owner.token }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('GET', BASE, { token: owner.token, query: { cursor: 'doc_\u0000' } }), 400, 'VALIDATION_ERROR');
  });

  it('answers 400 for a limit out of range', async () => {
    expectError(await t.request('GET', BASE, { token: owner.token, query: { limit: 0 } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('GET', BASE, { token: owner.token, query: { limit: 201 } }), 400, 'VALIDATION_ERROR');
  });
});

describe('security', () => {
  const routes = (id: string): Array<[string, string, unknown?]> => [
    ['GET', BASE],
    ['POST', BASE, { title: 'x', content: 'x' }],
    ['POST', `${BASE}/upsert`, { title: 'x', content: 'x' }],
    ['POST', `${BASE}/upload`],
    ['GET', `${BASE}/${id}`],
    ['PUT', `${BASE}/${id}`, { content: 'x' }],
    ['DELETE', `${BASE}/${id}`],
    ['GET', `${BASE}/${id}/attachments`],
  ];

  it('answers 401 without a token on every route', async () => {
    const doc = await createDoc(owner, { title: uniqueTitle(), content: 'secret' });
    for (const [method, url, body] of routes(doc.id)) {
      const res = await t.request(method as 'GET', url, body === undefined ? {} : { body });
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it('answers 403 INSUFFICIENT_SCOPE to a token without knowledge, and serves one with it', async () => {
    const doc = await createDoc(owner, { title: uniqueTitle(), content: 'secret' });
    const memoryOnly = await t.tokenWithScopes(owner, ['memory', 'read']);
    for (const [method, url, body] of routes(doc.id)) {
      const res = await t.request(method as 'GET', url, { token: memoryOnly, ...(body === undefined ? {} : { body }) });
      const error = expectError(res, 403, 'INSUFFICIENT_SCOPE');
      expect(error.message).toContain('knowledge');
    }
    const knowledgeOnly = await t.tokenWithScopes(owner, ['knowledge']);
    expect((await t.request('GET', `${BASE}/${doc.id}`, { token: knowledgeOnly })).status).toBe(200);
    const created = await t.request('POST', BASE, { token: knowledgeOnly, body: { title: uniqueTitle(), content: 'by a scoped token' } });
    expect(created.status).toBe(200);
  });

  it("answers 404 for another owner's document, exactly as for an unknown one, and leaves it unchanged", async () => {
    const theirs = await createDoc(other, { title: uniqueTitle(), content: 'private' });
    const get = expectError(await t.request('GET', `${BASE}/${theirs.id}`, { token: owner.token }), 404, 'NOT_FOUND');
    expect(get.message).not.toContain('private');
    expectError(await t.request('PUT', `${BASE}/${theirs.id}`, { token: owner.token, body: { content: 'overwritten' } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `${BASE}/${theirs.id}`, { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${BASE}/${theirs.id}/attachments`, { token: owner.token }), 404, 'NOT_FOUND');
    const still = await t.request('GET', `${BASE}/${theirs.id}`, { token: other.token });
    expect(still.body.data.content).toBe('private');

    const list = await t.request('GET', BASE, { token: owner.token, query: { limit: 200 } });
    expect(list.body.data.map((d: { id: string }) => d.id)).not.toContain(theirs.id);
  });
});

describe('search and paging', () => {
  let searcher: Owner;

  beforeAll(async () => {
    searcher = await t.createOwner('Searcher');
    await createDoc(searcher, { title: 'Kubernetes networking', content: 'Services, ingress and the CNI plugins explained.' });
    await createDoc(searcher, {
      title: 'Weekly notes',
      content: `${'Filler sentence about gardening and tomatoes. '.repeat(20)}Then we talked about kubernetes upgrades for a while.`,
    });
    await createDoc(searcher, { title: 'Recipes', content: 'Tomato soup with basil.' });
    await createDoc(other, { title: 'Kubernetes secrets of another owner', content: 'kubernetes kubernetes kubernetes' });
  });

  it('ranks title matches first and excerpts around the first match', async () => {
    const res = await t.request('GET', BASE, { token: searcher.token, query: { q: 'kubernetes' } });
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.data.map((d: { title: string }) => d.title)).toEqual(['Kubernetes networking', 'Weekly notes']);
    const [best, second] = res.body.data;
    expect(best.rank).toBeGreaterThan(second.rank);
    expect(second.excerpt).toContain('kubernetes upgrades');
    expect(second.excerpt.startsWith('…')).toBe(true);
    expect(second).not.toHaveProperty('content');
  });

  it('ranks any word by default, needs every word with match=all, and matches word prefixes', async () => {
    const both = await t.request('GET', BASE, { token: searcher.token, query: { q: 'tomato soup', match: 'all' } });
    expect(both.body.data.map((d: { title: string }) => d.title)).toEqual(['Recipes']);
    // Any word: the document holding both first, then the one holding "tomatoes" (a prefix of its stem).
    const any = await t.request('GET', BASE, { token: searcher.token, query: { q: 'Where is my tomato soup?' } });
    expect(any.body.data.map((d: { title: string }) => d.title)).toEqual(['Recipes', 'Weekly notes']);
    const prefix = await t.request('GET', BASE, { token: searcher.token, query: { q: 'kube' } });
    expect(prefix.body.data).toHaveLength(2);
    const none = await t.request('GET', BASE, { token: searcher.token, query: { q: 'zebra' } });
    expect(none.body).toEqual({ data: [], nextCursor: null });
    // Search syntax in the query is plain text, never an error.
    const syntax = await t.request('GET', BASE, { token: searcher.token, query: { q: 'kubernetes" OR NEAR(' } });
    expect(syntax.status).toBe(200);
  });

  it("never finds another owner's documents", async () => {
    const res = await t.request('GET', BASE, { token: searcher.token, query: { q: 'secrets' } });
    expect(res.body.data).toEqual([]);
    const service = await t.container.knowledge.searchPassages(searcher.id, 'kubernetes secrets owner', { limit: 10, mode: 'any' });
    expect(service.map((d) => d.title)).not.toContain('Kubernetes secrets of another owner');
    const passages = await t.request('GET', `${BASE}/passages`, { token: searcher.token, query: { q: 'kubernetes secrets owner' } });
    expect(passages.status).toBe(200);
    expect(passages.body.data.map((d: { title: string }) => d.title)).not.toContain('Kubernetes secrets of another owner');
  });

  it('limits search results and refuses a cursor with q', async () => {
    const res = await t.request('GET', BASE, { token: searcher.token, query: { q: 'kubernetes', limit: 1 } });
    expect(res.body.data).toHaveLength(1);
    expectError(await t.request('GET', BASE, { token: searcher.token, query: { q: 'kubernetes', cursor: 'doc_X' } }), 400, 'VALIDATION_ERROR');
  });

  it('finds updated content and forgets deleted documents', async () => {
    const doc = await createDoc(searcher, { title: 'Mutable', content: 'original wording' });
    await t.request('PUT', `${BASE}/${doc.id}`, { token: searcher.token, body: { content: 'replacement phrasing' } });
    expect((await t.request('GET', BASE, { token: searcher.token, query: { q: 'original' } })).body.data).toEqual([]);
    expect((await t.request('GET', BASE, { token: searcher.token, query: { q: 'phrasing' } })).body.data).toHaveLength(1);
    await t.request('DELETE', `${BASE}/${doc.id}`, { token: searcher.token });
    expect((await t.request('GET', BASE, { token: searcher.token, query: { q: 'phrasing' } })).body.data).toEqual([]);
  });

  it('serves passages for chat and agents: any word, best first, with their documents and offsets', async () => {
    const any = await t.container.knowledge.searchPassages(searcher.id, 'upgrade kubernetes tomato', { limit: 5, mode: 'any' });
    expect(any.length).toBe(3);
    expect(any[0]).toEqual({
      id: expect.any(String),
      documentId: expect.any(String),
      title: expect.any(String),
      headingPath: expect.any(Array),
      text: expect.any(String),
      start: expect.any(Number),
      end: expect.any(Number),
      score: expect.any(Number),
      matched: 'words',
    });
    expect(any.map((d) => d.score)).toEqual([...any.map((d) => d.score)].sort((a, b) => b - a));
    const all = await t.container.knowledge.searchPassages(searcher.id, 'kubernetes basil', { limit: 5, mode: 'all' });
    expect(all).toEqual([]);
    expect(await t.container.knowledge.countDocuments(searcher.id)).toBe(3);
  });

  it('pages through documents newest first with nextCursor', async () => {
    const pager = await t.createOwner('Pager');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createDoc(pager, { title: `Page doc ${i}`, content: `n${i}` })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: ApiResponse = await t.request('GET', BASE, { token: pager.token, query: { limit: 2, ...(cursor ? { cursor } : {}) } });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((d: { id: string }) => d.id));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });
});

describe('gateway context section', () => {
  it("answers the document count and the 20 most recently changed titles, for tokens with knowledge only", async () => {
    const reader = await t.createOwner('Context reader');
    const docs = [];
    for (let i = 0; i < 22; i++) docs.push(await createDoc(reader, { title: `Context doc ${i}`, content: `c${i}` }));
    // Changing the oldest makes it the most recent (a few ms later, so its time is strictly newer).
    await new Promise((resolve) => setTimeout(resolve, 5));
    await t.request('PUT', `${BASE}/${docs[0]!.id}`, { token: reader.token, body: { content: 'changed' } });

    const section = createKnowledgeContextSection(t.container.knowledge, async (ownerId, q, limit) => (await t.container.knowledgeSearch.search(ownerId, q, limit)).map((provided) => provided.hit));
    expect(section.name).toBe('knowledge');
    const master = await t.container.tokens.authenticate(reader.token);
    const scoped = await t.container.tokens.authenticate(await t.tokenWithScopes(reader, ['knowledge']));
    const without = await t.container.tokens.authenticate(await t.tokenWithScopes(reader, ['read', 'memory']));
    expect(section.visibleTo(master!)).toBe(true);
    expect(section.visibleTo(scoped!)).toBe(true);
    expect(section.visibleTo(without!)).toBe(false);

    const value = (await section.load(reader.id, scoped!)) as { documentCount: number; recent: Array<Record<string, string>> };
    expect(value.documentCount).toBe(22);
    expect(value.recent).toHaveLength(20);
    expect(value.recent[0]).toEqual({ id: docs[0]!.id, title: 'Context doc 0', updatedAt: expect.stringMatching(ISO) });
    expect(value.recent[1]!.title).toBe('Context doc 21');
    expect(value.recent.map((d) => d.title)).not.toContain('Context doc 1');
  });
});
