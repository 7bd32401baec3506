import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import type { Principal } from '../../http/access.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import { createMemoryContextSection, MEMORY_CONTEXT_CAP } from './memory.context.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

async function principal(secret: string): Promise<Principal> {
  const found = await t.container.tokens.authenticate(secret);
  if (!found) throw new Error('token did not authenticate');
  return found;
}

async function remember(owner: Owner, content: string): Promise<{ id: string; content: string; created_at: string; updatedAt: string; author: unknown }> {
  const res = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content } });
  if (res.status !== 201) throw new Error(`remember failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/** Many entries in one statement, ids in creation order as the service makes them. */
async function rememberInBulk(owner: Owner, count: number): Promise<string[]> {
  const rows = Array.from({ length: count }, (_, i) => {
    const now = isoNow();
    return { id: newId('mem'), owner_id: owner.id, content: `Bulk note ${i}`, created_at: now, updated_at: now };
  });
  await t.storage.db.insertInto('memory_entries').values(rows).execute();
  return rows.map((row) => row.id);
}

describe('happy path', () => {
  let owner: Owner;

  beforeAll(async () => {
    owner = await t.createOwner('Memory Owner');
  });

  it('stores an entry and answers it with 201', async () => {
    const content = '# Likes\n\n- tea, not coffee\n- *long* walks  \n';
    const res = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content } });
    expect(res.status).toBe(201);
    const master = await principal(owner.token);
    expect(res.body).toEqual({
      data: {
        id: expect.stringMatching(/^mem_[0-9A-Z]{26}$/),
        content,
        created_at: expect.any(String),
        updatedAt: expect.any(String),
        // An entry given only content is a note; its author is the server's record of the caller.
        kind: 'note',
        tags: [],
        pinned: false,
        validFrom: null,
        validUntil: null,
        source: null,
        author: { channel: 'api', token: { id: master.tokenId, name: master.name, kind: 'master' }, agent: null },
        editedBy: null,
        supersedes: [],
        supersededBy: null,
        supersededAt: null,
        seenCount: 1,
        lastSeenAt: null,
        lastSeenBy: null,
      },
    });
    expect(new Date(res.body.data.created_at).toISOString()).toBe(res.body.data.created_at);
    expect(res.body.data.updatedAt).toBe(res.body.data.created_at);
  });

  it('stores every one of many entries sent at once (one batch, several INSERTs), each searchable', async () => {
    const busy = await t.createOwner('Busy');
    const count = 75;
    const sent = await Promise.all(
      Array.from({ length: count }, (_, i) => t.request('POST', '/api/v1/memory', { token: busy.token, body: { content: `Batched note ${i} about zephyrs` } })),
    );
    expect(sent.map((res) => res.status)).toEqual(Array(count).fill(201));
    const ids = new Set(sent.map((res) => res.body.data.id as string));
    expect(ids.size).toBe(count);
    const listed = await t.request('GET', '/api/v1/memory?limit=100', { token: busy.token });
    expect(listed.status).toBe(200);
    expect(new Set(listed.body.data.map((entry: { id: string }) => entry.id))).toEqual(ids);
    const byContent = new Map(sent.map((res) => [res.body.data.id as string, res.body.data.content as string]));
    for (const entry of listed.body.data as Array<{ id: string; content: string }>) expect(entry.content).toBe(byContent.get(entry.id));
    const found = await t.request('GET', '/api/v1/memory?q=zephyrs&limit=100', { token: busy.token });
    expect(found.body.data).toHaveLength(count);
  });

  it('lists newest first', async () => {
    const fresh = await t.createOwner('Ordered');
    const a = await remember(fresh, 'first');
    const b = await remember(fresh, 'second');
    const c = await remember(fresh, 'third');
    const res = await t.request('GET', '/api/v1/memory', { token: fresh.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [c, b, a], nextCursor: null });
  });

  it('pages with limit and cursor across three pages', async () => {
    const fresh = await t.createOwner('Paged');
    const created = [];
    for (let i = 0; i < 7; i++) created.push(await remember(fresh, `note ${i}`));
    const newestFirst = created.map((e) => e.id).reverse();

    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> = { limit: 3 };
      if (cursor) query.cursor = cursor;
      const res = await t.request('GET', '/api/v1/memory', { token: fresh.token, query });
      expect(res.status).toBe(200);
      sizes.push(res.body.data.length);
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(newestFirst);
  });

  it('changes the content of an entry and keeps created_at', async () => {
    const entry = await remember(owner, 'Prefers email');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: owner.token, body: { content: 'Prefers phone calls' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...entry, content: 'Prefers phone calls', updatedAt: expect.any(String), editedBy: entry.author });
    expect(res.body.data.updatedAt > entry.created_at).toBe(true);
    const list = await t.request('GET', '/api/v1/memory', { token: owner.token });
    expect(list.body.data.find((e: { id: string }) => e.id === entry.id)).toEqual(res.body.data);
  });

  it('deletes one entry', async () => {
    const entry = await remember(owner, 'Temporary');
    const res = await t.request('DELETE', `/api/v1/memory/${entry.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: entry.id, deleted: true } });
    const list = await t.request('GET', '/api/v1/memory', { token: owner.token });
    expect(list.body.data.map((e: { id: string }) => e.id)).not.toContain(entry.id);
    expectError(await t.request('DELETE', `/api/v1/memory/${entry.id}`, { token: owner.token }), 404, 'NOT_FOUND');
  });

  it('clears every entry and answers exactly { success, deleted }', async () => {
    const fresh = await t.createOwner('Clearing');
    const bystander = await t.createOwner('Bystander');
    for (let i = 0; i < 4; i++) await remember(fresh, `entry ${i}`);
    const kept = await remember(bystander, 'not theirs to clear');

    const res = await t.request('DELETE', '/api/v1/memory', { token: fresh.token });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ success: true, deleted: 4 });

    const list = await t.request('GET', '/api/v1/memory', { token: fresh.token });
    expect(list.body).toEqual({ data: [], nextCursor: null });
    expect((await t.request('DELETE', '/api/v1/memory', { token: fresh.token })).body).toStrictEqual({ success: true, deleted: 0 });
    expect((await t.request('GET', '/api/v1/memory', { token: bystander.token })).body.data).toEqual([kept]);
  });

  it('works with a token holding only the memory scope', async () => {
    const token = await t.tokenWithScopes(owner, ['memory']);
    const created = await t.request('POST', '/api/v1/memory', { token, body: { content: 'via scoped token' } });
    expect(created.status).toBe(201);
    expect((await t.request('GET', '/api/v1/memory', { token })).status).toBe(200);
    expect((await t.request('PATCH', `/api/v1/memory/${created.body.data.id}`, { token, body: { content: 'changed' } })).status).toBe(200);
    expect((await t.request('DELETE', `/api/v1/memory/${created.body.data.id}`, { token })).status).toBe(200);
  });

  it('lists reflect every write at once, each page read again before the write (pages may be cached on SQLite)', async () => {
    const fresh = await t.createOwner('Cached pages');
    const other = await t.createOwner('Other pages');
    const list = async (who: Owner, query: Record<string, string> = {}) =>
      (await t.request('GET', '/api/v1/memory', { token: who.token, query: { limit: '2', ...query } })).body as {
        data: Array<{ id: string; content: string }>;
        nextCursor: string | null;
      };
    expect(await list(fresh)).toEqual({ data: [], nextCursor: null });
    expect(await list(other)).toEqual({ data: [], nextCursor: null });

    const first = await remember(fresh, 'one');
    expect((await list(fresh)).data.map((e) => e.content)).toEqual(['one']);
    const second = await remember(fresh, 'two');
    const third = await remember(fresh, 'three');
    expect(await list(fresh)).toEqual({ data: [third, second], nextCursor: second.id });
    expect((await list(fresh, { cursor: second.id })).data).toEqual([first]);
    // Another owner's writes and reads never show in this owner's pages, nor the other way round.
    const theirs = await remember(other, 'theirs');
    expect((await list(other)).data).toEqual([theirs]);
    expect(await list(fresh)).toEqual({ data: [third, second], nextCursor: second.id });

    await t.request('PATCH', `/api/v1/memory/${first.id}`, { token: fresh.token, body: { content: 'one, changed' } });
    expect((await list(fresh, { cursor: second.id })).data.map((e) => e.content)).toEqual(['one, changed']);
    await t.request('DELETE', `/api/v1/memory/${third.id}`, { token: fresh.token });
    expect((await list(fresh)).data.map((e) => e.id)).toEqual([second.id, first.id]);
    await t.request('DELETE', '/api/v1/memory', { token: fresh.token });
    expect(await list(fresh)).toEqual({ data: [], nextCursor: null });
    expect(await list(fresh, { cursor: second.id })).toEqual({ data: [], nextCursor: null });
    expect((await list(other)).data).toEqual([theirs]);
  });
});

describe('search', () => {
  let owner: Owner;
  let strong: { id: string };
  let weak: { id: string };

  beforeAll(async () => {
    owner = await t.createOwner('Searcher');
    const other = await t.createOwner('Other Searcher');
    weak = await remember(
      owner,
      'A long note about the week: meetings, groceries, a walk in the park, a film, and somewhere in the middle ' +
        'of it all a little TypeScript, then dinner with friends and an early night.',
    );
    strong = await remember(owner, 'TypeScript TypeScript: strict TypeScript everywhere');
    await remember(owner, 'Coffee beans from the market');
    await remember(other, 'TypeScript notes of somebody else');
  });

  it('answers the owner’s matches best first, with no cursor', async () => {
    const res = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'typescript' } });
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual([strong.id, weak.id]);
    expect(res.body.nextCursor).toBeNull();
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      [
        'author',
        'content',
        'created_at',
        'editedBy',
        'id',
        'kind',
        'lastSeenAt',
        'lastSeenBy',
        'pinned',
        'seenCount',
        'source',
        'supersededAt',
        'supersededBy',
        'supersedes',
        'tags',
        'updatedAt',
        'validFrom',
        'validUntil',
      ],
    );
  });

  it('applies limit; any word by default, every word with match=all', async () => {
    const limited = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'typescript', limit: 1 } });
    expect(limited.body.data.map((e: { id: string }) => e.id)).toEqual([strong.id]);
    // Any word: the entry holding both words first, then the one holding one of them.
    const any = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'typescript groceries' } });
    expect(any.body.data.map((e: { id: string }) => e.id)).toEqual([weak.id, strong.id]);
    const both = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'typescript groceries', match: 'all' } });
    expect(both.body.data.map((e: { id: string }) => e.id)).toEqual([weak.id]);
    expectError(await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'typescript', match: 'some' } }), 400, 'VALIDATION_ERROR');
    const none = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'nonexistentword' } });
    expect(none.body).toEqual({ data: [], nextCursor: null });
  });

  it('never finds another owner’s entries', async () => {
    const res = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'somebody' } });
    expect(res.body.data).toEqual([]);
  });

  it('follows changes and deletions', async () => {
    const entry = await remember(owner, 'Allergic to peanuts');
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'peanuts' } })).body.data).toHaveLength(1);
    await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: owner.token, body: { content: 'Allergic to shellfish' } });
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'peanuts' } })).body.data).toEqual([]);
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'shellfish' } })).body.data).toHaveLength(1);
    await t.request('DELETE', `/api/v1/memory/${entry.id}`, { token: owner.token });
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'shellfish' } })).body.data).toEqual([]);
  });

  it('treats a blank q as no search and refuses q with a cursor', async () => {
    const blank = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: '  ' } });
    expect(blank.status).toBe(200);
    expect(blank.body.data).toHaveLength(3);
    const both = expectError(
      await t.request('GET', '/api/v1/memory', { token: owner.token, query: { q: 'typescript', cursor: strong.id } }),
      400,
      'VALIDATION_ERROR',
    );
    // The service refuses `cursor`; the route names the part of the request that carried it.
    expect(both.details).toEqual([{ field: 'querystring.cursor', message: 'must not be given with q' }]);
  });
});

describe('errors', () => {
  let owner: Owner;
  let entry: { id: string; content: string };

  beforeAll(async () => {
    owner = await t.createOwner('Erroneous');
    entry = await remember(owner, 'original');
  });

  it.each([
    ['empty content', { content: '' }],
    ['whitespace-only content', { content: ' \n\t ' }],
    ['no content', {}],
    ['content that is not a string', { content: { text: 'x' } }],
    ['an unknown field', { content: 'x', labels: ['a'] }],
  ])('refuses %s with 400', async (_what, body) => {
    expectError(await t.request('POST', '/api/v1/memory', { token: owner.token, body }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: owner.token, body }), 400, 'VALIDATION_ERROR');
  });

  it('names blank content by the part of the request that carried it', async () => {
    const body = { content: ' \n\t ' };
    const created = expectError(await t.request('POST', '/api/v1/memory', { token: owner.token, body }), 400, 'VALIDATION_ERROR');
    expect(created.details).toEqual([{ field: 'body.content', message: 'must not be blank' }]);
    const updated = expectError(await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: owner.token, body }), 400, 'VALIDATION_ERROR');
    expect(updated.details).toEqual([{ field: 'body.content', message: 'must not be blank' }]);
  });

  it('stores a lone surrogate (a JSON escape of half a pair) as U+FFFD and answers what it stored, alone or in a batch', async () => {
    // The escapes reach the server as written: JSON.stringify writes a lone surrogate as \udXXX.
    const one = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'Half a pair \ud800 here' } });
    expect(one.status).toBe(201);
    expect(one.body.data.content).toBe('Half a pair \ufffd here');
    // Several at once share one INSERT: a bad one must not fail the others, nor itself.
    const many = await Promise.all(
      Array.from({ length: 8 }, (_, i) => t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: i % 2 ? `Lone \udc00 ${i}` : `Whole ${i} 😀` } })),
    );
    expect(many.map((res) => res.status)).toEqual(Array(8).fill(201));
    expect(many.map((res) => res.body.data.content)).toEqual(Array.from({ length: 8 }, (_, i) => (i % 2 ? `Lone \ufffd ${i}` : `Whole ${i} 😀`)));
    const changed = await t.request('PATCH', `/api/v1/memory/${one.body.data.id}`, { token: owner.token, body: { content: 'Changed \ud83d' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.content).toBe('Changed \ufffd');
    const list = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: '200' } });
    expect(list.body.data.find((e: { id: string }) => e.id === one.body.data.id).content).toBe('Changed \ufffd');
    // The same text again, written with the replacement character itself, is its duplicate.
    const again = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'Changed \ufffd' } });
    expect(again.status).toBe(200);
    expect(again.body.duplicateOf).toBe(one.body.data.id);
    for (const res of [one, ...many]) expect((await t.request('DELETE', `/api/v1/memory/${res.body.data.id}`, { token: owner.token })).status).toBe(200);
  });

  it('accepts exactly 64 KiB of UTF-8 and answers 413 beyond, counting bytes not characters', async () => {
    const exact = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'x'.repeat(65_536) } });
    expect(exact.status).toBe(201);
    expect(exact.body.data.content).toHaveLength(65_536);

    expectError(await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'x'.repeat(65_537) } }), 413, 'PAYLOAD_TOO_LARGE');
    // 32,769 characters of two bytes each: under 64 Ki characters, over 64 KiB.
    expectError(await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'é'.repeat(32_769) } }), 413, 'PAYLOAD_TOO_LARGE');
    expectError(
      await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: owner.token, body: { content: '😀'.repeat(16_385) } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    const list = await t.request('GET', '/api/v1/memory', { token: owner.token });
    expect(list.body.data.map((e: { content: string }) => e.content.length)).toEqual([65_536, 'original'.length]);
  });

  it('answers 404 for an unknown id', async () => {
    expectError(await t.request('PATCH', '/api/v1/memory/mem_NOPE', { token: owner.token, body: { content: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', '/api/v1/memory/mem_NOPE', { token: owner.token }), 404, 'NOT_FOUND');
  });

  it('refuses a limit outside 1 to 200', async () => {
    expectError(await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: 0 } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: 201 } }), 400, 'VALIDATION_ERROR');
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: 200 } })).status).toBe(200);
  });
});

describe('security', () => {
  let owner: Owner;
  let intruder: Owner;
  let entry: { id: string; content: string };

  beforeAll(async () => {
    owner = await t.createOwner('Private');
    intruder = await t.createOwner('Intruder');
    entry = await remember(owner, 'secret plans');
  });

  it('answers 401 without a token on every route', async () => {
    const routes = [
      ['GET', '/api/v1/memory'],
      ['POST', '/api/v1/memory'],
      ['DELETE', '/api/v1/memory'],
      ['PATCH', `/api/v1/memory/${entry.id}`],
      ['DELETE', `/api/v1/memory/${entry.id}`],
    ] as const;
    for (const [method, url] of routes) {
      const body = method === 'POST' || method === 'PATCH' ? { content: 'x' } : undefined;
      expectError(await t.request(method, url, body ? { body } : {}), 401, 'UNAUTHORIZED');
    }
  });

  it('answers 403 INSUFFICIENT_SCOPE to a token without memory', async () => {
    const token = await t.tokenWithScopes(owner, ['read', 'identity', 'knowledge']);
    expectError(await t.request('GET', '/api/v1/memory', { token }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('POST', '/api/v1/memory', { token, body: { content: 'x' } }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('DELETE', '/api/v1/memory', { token }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token, body: { content: 'x' } }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('DELETE', `/api/v1/memory/${entry.id}`, { token }), 403, 'INSUFFICIENT_SCOPE');
  });

  it("answers 404 for another owner's id and leaves the entry alone", async () => {
    expectError(await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: intruder.token, body: { content: 'mine now' } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/memory/${entry.id}`, { token: intruder.token }), 404, 'NOT_FOUND');
    expect((await t.request('DELETE', '/api/v1/memory', { token: intruder.token })).body).toStrictEqual({ success: true, deleted: 0 });
    expect((await t.request('GET', '/api/v1/memory', { token: intruder.token })).body.data).toEqual([]);
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data).toEqual([
      expect.objectContaining({ id: entry.id, content: 'secret plans' }),
    ]);
  });
});

describe('gateway context section', () => {
  it('is visible only with the memory scope', async () => {
    const owner = await t.createOwner('Visible');
    const section = createMemoryContextSection(t.container.memory);
    expect(section.name).toBe('memory');
    expect(section.visibleTo(await principal(owner.token))).toBe(true);
    expect(section.visibleTo(await principal(await t.tokenWithScopes(owner, ['memory'])))).toBe(true);
    expect(section.visibleTo(await principal(await t.tokenWithScopes(owner, ['read', 'identity'])))).toBe(false);
  });

  it('caps the entries, newest first, and tells the total', async () => {
    expect(MEMORY_CONTEXT_CAP).toBe(100);
    const owner = await t.createOwner('Many');
    const ids = await rememberInBulk(owner, 105);
    await rememberInBulk(await t.createOwner('Someone else'), 3);
    const memoryToken = await t.tokenWithScopes(owner, ['memory']);
    const context = (await createMemoryContextSection(t.container.memory).load(owner.id, await principal(memoryToken))) as {
      entries: Array<Record<string, unknown>>;
      total: number;
      truncated: boolean;
    };
    expect(context.total).toBe(105);
    expect(context.truncated).toBe(true);
    expect(context.entries).toHaveLength(MEMORY_CONTEXT_CAP);
    expect(context.entries.map((e) => e.id)).toEqual(ids.slice(-MEMORY_CONTEXT_CAP).reverse());
    expect(context.entries[0]).toMatchObject({ id: ids[104], content: 'Bulk note 104', created_at: expect.any(String), updatedAt: expect.any(String) });
  });

  it('carries as many entries as the owner configures', async () => {
    const owner = await t.createOwner('Configured');
    await rememberInBulk(owner, 7);
    const context = (await createMemoryContextSection(t.container.memory, 5).load(owner.id, await principal(owner.token))) as {
      entries: unknown[];
      total: number;
      truncated: boolean;
    };
    expect(context.entries).toHaveLength(5);
    expect(context).toMatchObject({ total: 7, truncated: true });
  });

  it('is not truncated at exactly the cap, nor below it', async () => {
    const section = createMemoryContextSection(t.container.memory);
    const full = await t.createOwner('Full');
    await rememberInBulk(full, MEMORY_CONTEXT_CAP);
    const atCap = (await section.load(full.id, await principal(full.token))) as { entries: unknown[]; total: number; truncated: boolean };
    expect(atCap.entries).toHaveLength(MEMORY_CONTEXT_CAP);
    expect(atCap.total).toBe(MEMORY_CONTEXT_CAP);
    expect(atCap.truncated).toBe(false);

    const few = await t.createOwner('Few');
    const a = await remember(few, 'one');
    const b = await remember(few, 'two');
    // The context carries each entry without seenCount, lastSeenAt and lastSeenBy (the review's fields).
    const inContext = (entry: object) => Object.fromEntries(Object.entries(entry).filter(([key]) => !['seenCount', 'lastSeenAt', 'lastSeenBy'].includes(key)));
    expect(await section.load(few.id, await principal(few.token))).toEqual({ entries: [inContext(b), inContext(a)], total: 2, truncated: false });

    const none = await t.createOwner('None');
    expect(await section.load(none.id, await principal(none.token))).toEqual({ entries: [], total: 0, truncated: false });
  });
});
