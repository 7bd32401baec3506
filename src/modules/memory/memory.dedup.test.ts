import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPublicApp } from '../../../test/authorization.helpers.js';
import { startFakeOpenAI } from '../../../test/fakes/openai.js';
import { loadConfig } from '../../config.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { newId } from '../../lib/ids.js';
import { sameTextForm, sameTextKey } from '../../lib/same-text.js';
import { keyHash } from './memory.keys.js';
import * as dedupMigration from '../../storage/migrations/0037-memory-dedup.js';
import * as textKeysMigration from '../../storage/migrations/0044-memory-text-keys-in-process.js';

/**
 * No duplicates (docs/decisions/memory.md, "No duplicates"): a write whose text a current entry
 * of the owner already holds adds nothing, answers 200 with that entry and `duplicateOf`, counts
 * the attempt on it and audits it; however many such writes arrive at once.
 */
let t: TestApp;
let base: string;
let owner: Owner;

beforeAll(async () => {
  ({ t, base } = await startPublicApp());
  owner = await t.createOwner('Dedup Owner');
});
afterAll(async () => t.close());

const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => ignoreFailure(c.close(), 'a client closed already is closed either way')));
});

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'dedup-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

async function tokenOf(who: Owner, name: string): Promise<{ token: string; id: string }> {
  const res = await t.request('POST', '/api/v1/tokens', { token: who.token, body: { name, scopes: ['memory'] } });
  expect(res.status).toBe(201);
  return { token: res.body.data.token, id: res.body.data.id };
}

async function write(token: string, body: Record<string, unknown>) {
  return t.request('POST', '/api/v1/memory', { token, body });
}

async function created(token: string, body: Record<string, unknown>): Promise<any> {
  const res = await write(token, body);
  if (res.status !== 201) throw new Error(`expected 201, got ${res.status} ${res.text}`);
  return res.body.data;
}

async function allEntries(token: string, query: Record<string, string> = {}): Promise<any[]> {
  const res = await t.request('GET', '/api/v1/memory', { token, query: { limit: '200', ...query } });
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('the compared form of a text', () => {
  it('ignores case, spacing, Unicode compatibility forms and trailing punctuation, and nothing else', () => {
    expect(sameTextForm('  I like   TEA.\n')).toBe('i like tea');
    expect(sameTextForm('Ｉ like tea!!')).toBe('i like tea');
    expect(sameTextForm('She said "call me Ann."')).toBe('she said "call me ann"');
    expect(sameTextForm('Dentist: Dr Park')).toBe('dentist: dr park');
    expect(sameTextForm('my dentist is Dr Park')).not.toBe(sameTextForm('my dentist was Dr Park until 2024'));
    expect(sameTextForm('Meeting at 10')).not.toBe(sameTextForm('Meeting at 10.30'));
  });
});

describe('a write of a text already held', () => {
  it('answers 201 first, then 200 with the existing entry and duplicateOf, counting each attempt and its writer', async () => {
    const first = await tokenOf(owner, 'First agent');
    const second = await tokenOf(owner, 'Second agent');
    const entry = await created(first.token, { content: 'Prefers green tea in the morning.' });
    expect(entry).toMatchObject({ seenCount: 1, lastSeenAt: null, lastSeenBy: null });

    const again = await write(second.token, { content: '  prefers GREEN tea in the   morning ', kind: 'preference', tags: ['drinks'] });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ data: expect.any(Object), duplicateOf: entry.id, matchedBy: 'text' });
    expect(again.body.data).toMatchObject({
      id: entry.id,
      // The entry as it was written: a duplicate adds nothing but the count.
      content: 'Prefers green tea in the morning.',
      kind: 'note',
      tags: [],
      created_at: entry.created_at,
      updatedAt: entry.updatedAt,
      author: { token: { id: first.id, name: 'First agent' } },
      seenCount: 2,
      lastSeenBy: { channel: 'api', token: { id: second.id, name: 'Second agent', kind: 'api' }, agent: null },
    });
    expect(again.body.data.lastSeenAt >= entry.created_at).toBe(true);

    const third = await write(first.token, { content: 'Prefers green tea in the morning!' });
    expect(third.status).toBe(200);
    expect(third.body.data).toMatchObject({ id: entry.id, seenCount: 3, lastSeenBy: { token: { id: first.id } } });

    const listed = (await allEntries(owner.token)).filter((e) => sameTextForm(e.content) === 'prefers green tea in the morning');
    expect(listed.map((e) => e.id)).toEqual([entry.id]);
    expect(listed[0]).toMatchObject({ seenCount: 3, lastSeenBy: { token: { id: first.id } } });
  });

  it('audits each attempt, naming the entry', async () => {
    const entry = await created(owner.token, { content: 'Has a cat named Miso' });
    expect((await write(owner.token, { content: 'has a cat named miso.' })).status).toBe(200);
    const audit = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'memory.duplicate' } });
    expect(audit.status).toBe(200);
    expect(audit.body.data.find((e: { targetId: string }) => e.targetId === entry.id)).toMatchObject({
      action: 'memory.duplicate',
      outcome: 'success',
      targetType: 'memory_entry',
      details: { matchedBy: 'text', channel: 'api', seenCount: 2 },
    });
  });

  it('keeps different facts that look alike apart', async () => {
    await created(owner.token, { content: 'My dentist is Dr Park' });
    await created(owner.token, { content: 'My dentist was Dr Park until 2024' });
    await created(owner.token, { content: 'My dentist is Dr Parker' });
  });

  it('creates exactly one entry from 20 concurrent identical writes', async () => {
    const writers = await Promise.all(Array.from({ length: 4 }, (_, i) => tokenOf(owner, `Racer ${i}`)));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => write(writers[i % 4]!.token, { content: i % 2 ? 'Gym on Tuesdays and Thursdays' : 'gym on tuesdays and thursdays.' })));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(18).fill(200), 201].sort());
    const id = answers.find((res) => res.status === 201)!.body.data.id;
    for (const res of answers.filter((r) => r.status === 200)) expect(res.body.duplicateOf).toBe(id);
    const held = (await allEntries(owner.token)).filter((e) => sameTextForm(e.content) === 'gym on tuesdays and thursdays');
    expect(held.map((e) => e.id)).toEqual([id]);
    expect(held[0].seenCount).toBe(20);
  });

  it('creates one entry per owner from concurrent writes of several owners and texts', async () => {
    const owners = await Promise.all([t.createOwner('Racing A'), t.createOwner('Racing B')]);
    const texts = ['Allergic to peanuts', 'Lives in Lyon'];
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => write(owners[i % 2]!.token, { content: texts[Math.floor(i / 2) % 2]! })));
    expect(answers.filter((res) => res.status === 201)).toHaveLength(4);
    expect(answers.filter((res) => res.status === 200)).toHaveLength(20);
    for (const who of owners) {
      const entries = await allEntries(who.token);
      expect(entries.map((e) => e.content).sort()).toEqual([...texts].sort());
      expect(entries.map((e) => e.seenCount)).toEqual([6, 6]);
    }
  });

  it('is not a duplicate of another owner’s entry', async () => {
    const other = await t.createOwner('Dedup Other');
    const mine = await created(owner.token, { content: 'Birthday on 3 May' });
    const theirs = await created(other.token, { content: 'Birthday on 3 May' });
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.seenCount).toBe(1);
    expect((await allEntries(owner.token)).find((e) => e.id === mine.id).seenCount).toBe(1);
  });
});

describe('entries no longer current', () => {
  it('lets a superseded entry’s text be written again as a new entry (supersedes on POST)', async () => {
    const old = await created(owner.token, { content: 'Works at Acme' });
    const newer = await created(owner.token, { content: 'Works at Globex', supersedes: [old.id] });
    expect(newer.supersedes).toEqual([old.id]);
    const back = await write(owner.token, { content: 'Works at Acme' });
    expect(back.status).toBe(201);
    expect(back.body.data.id).not.toBe(old.id);
    // And that one is now the current holder of the text.
    const again = await write(owner.token, { content: 'works at acme' });
    expect(again.body).toMatchObject({ duplicateOf: back.body.data.id });
  });

  it('lets a superseded entry’s text be written again as a new entry (supersededBy on PATCH)', async () => {
    const old = await created(owner.token, { content: 'Drives a Golf' });
    const newer = await created(owner.token, { content: 'Drives a Polo' });
    expect((await t.request('PATCH', `/api/v1/memory/${old.id}`, { token: owner.token, body: { supersededBy: newer.id } })).status).toBe(200);
    expect((await write(owner.token, { content: 'Drives a Golf' })).status).toBe(201);
  });

  it('lets an entry replace one with the same text (a rewrite of the same fact, with a new window)', async () => {
    const old = await created(owner.token, { content: 'Team lead of Platform' });
    const res = await write(owner.token, { content: 'Team lead of Platform', supersedes: [old.id], validFrom: '2026-01-01T00:00:00Z' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ supersedes: [old.id], validFrom: '2026-01-01T00:00:00.000Z' });
  });

  it('answers duplicateOf without superseding anything when another current entry already says it', async () => {
    const holder = await created(owner.token, { content: 'Uses Linux at home' });
    const replaced = await created(owner.token, { content: 'Uses Windows at home' });
    const res = await write(owner.token, { content: 'uses linux at home', supersedes: [replaced.id] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ duplicateOf: holder.id, data: { seenCount: 2 } });
    const history = await t.request('GET', `/api/v1/memory/${replaced.id}/history`, { token: owner.token });
    expect(history.body.data).toEqual([expect.objectContaining({ id: replaced.id, supersededBy: null })]);
  });

  it('lets an expired entry’s text be written again as a new entry', async () => {
    const expired = await created(owner.token, { content: 'On parental leave', validFrom: '2020-01-01T00:00:00Z', validUntil: '2020-06-01T00:00:00Z' });
    const res = await write(owner.token, { content: 'On parental leave' });
    expect(res.status).toBe(201);
    expect(res.body.data.id).not.toBe(expired.id);
    const history = await allEntries(owner.token, { include: 'history' });
    expect(history.filter((e) => e.content === 'On parental leave')).toHaveLength(2);
  });
});

describe('a change of content', () => {
  it('is refused with 409 naming the entry that already says it, and accepted for its own text', async () => {
    const one = await created(owner.token, { content: 'Speaks Spanish' });
    const two = await created(owner.token, { content: 'Speaks Italian' });
    const res = expectError(await t.request('PATCH', `/api/v1/memory/${two.id}`, { token: owner.token, body: { content: 'speaks spanish.' } }), 409, 'CONFLICT');
    expect(res.details).toMatchObject({ field: 'content', duplicateOf: one.id });
    expect(res.message).toContain(one.id);
    const own = await t.request('PATCH', `/api/v1/memory/${one.id}`, { token: owner.token, body: { content: 'Speaks Spanish!' } });
    expect(own.status).toBe(200);
    // The changed text is the one held now.
    expect((await write(owner.token, { content: 'speaks spanish' })).body.duplicateOf).toBe(one.id);
    const moved = await t.request('PATCH', `/api/v1/memory/${two.id}`, { token: owner.token, body: { content: 'Speaks Portuguese' } });
    expect(moved.status).toBe(200);
    expect((await write(owner.token, { content: 'Speaks Italian' })).status).toBe(201);
  });
});

describe('over MCP', () => {
  it('add_memory takes the structure, answers the entry, and duplicateOf when it added nothing; update_memory supersedes', async () => {
    const agent = await tokenOf(owner, 'MCP agent');
    const client = await mcpClient(agent.token);
    const tools = (await client.listTools()).tools;
    const add = tools.find((tool) => tool.name === 'add_memory')!;
    expect(add.description).toContain('duplicateOf');
    expect(add.description).toContain('supersedes');
    expect(Object.keys(add.inputSchema.properties!)).toEqual(expect.arrayContaining(['content', 'kind', 'tags', 'pinned', 'validFrom', 'validUntil', 'source', 'supersedes']));
    // It writes, never destroys, and is not idempotent (a repeat counts on the entry).
    expect(add.annotations?.destructiveHint).toBe(false);
    expect(add.annotations?.readOnlyHint).not.toBe(true);
    expect(add.annotations?.idempotentHint).not.toBe(true);
    expect(Object.keys(tools.find((tool) => tool.name === 'update_memory')!.inputSchema.properties!)).toContain('supersededBy');

    const first = await client.callTool({
      name: 'add_memory',
      arguments: { content: 'Flies out of Gatwick', kind: 'fact', tags: ['Travel'], pinned: false, validFrom: '2026-01-01T00:00:00Z', source: { kind: 'conversation', ref: 'chat-7' } },
    });
    expect(first.isError).toBeFalsy();
    const entry = first.structuredContent as any;
    expect(entry).toMatchObject({ content: 'Flies out of Gatwick', kind: 'fact', tags: ['travel'], validFrom: '2026-01-01T00:00:00.000Z', seenCount: 1, author: { channel: 'mcp' } });
    expect(entry.duplicateOf).toBeUndefined();

    const again = await client.callTool({ name: 'add_memory', arguments: { content: 'flies out of gatwick.' } });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent).toMatchObject({ id: entry.id, duplicateOf: entry.id, matchedBy: 'text', seenCount: 2, lastSeenBy: { channel: 'mcp', token: { id: agent.id } } });
    expect(JSON.parse((again.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ duplicateOf: entry.id });

    const newer = (await client.callTool({ name: 'add_memory', arguments: { content: 'Flies out of Heathrow' } })).structuredContent as any;
    const superseded = await client.callTool({ name: 'update_memory', arguments: { id: entry.id, supersededBy: newer.id } });
    expect(superseded.isError).toBeFalsy();
    expect(superseded.structuredContent).toMatchObject({ id: entry.id, supersededBy: newer.id });
    // No longer current: its text is free to be written again.
    const back = await client.callTool({ name: 'add_memory', arguments: { content: 'Flies out of Gatwick' } });
    expect(back.structuredContent).toMatchObject({ content: 'Flies out of Gatwick', seenCount: 1 });
    expect((back.structuredContent as any).id).not.toBe(entry.id);
    expect((back.structuredContent as any).duplicateOf).toBeUndefined();
  });
});

describe('by meaning, where vectors exist', () => {
  // The fake endpoint's vectors are bags of words: the same words in another order point the
  // same way (cosine 1) while their text differs, which is what this needs to see.
  it('answers duplicateOf for a text near enough in meaning, only when the setting says how near', async () => {
    const fake = await startFakeOpenAI();
    const embeddings = loadConfig({ EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: `${fake.url}/v1`, EMBEDDINGS_MODEL: 'bag-of-words', EMBEDDINGS_API_KEY: fake.apiKey }).embeddings;
    fake.embeddingDimensions = 256;
    const strict = await createTestApp({ config: { embeddings, memoryDuplicateCosine: 0.95 } });
    const textOnly = await createTestApp({ config: { embeddings } });
    try {
      for (const app of [strict, textOnly]) {
        const who = await app.createOwner('Meaning Owner');
        const post = (content: string, extra: Record<string, unknown> = {}) => app.request('POST', '/api/v1/memory', { token: who.token, body: { content, ...extra } });
        const stored = await post('green tea every morning before work');
        expect(stored.status).toBe(201);
        const replaceable = await post('black coffee after lunch on weekdays');
        await app.container.searchIndexer.runNow();
        expect((await app.container.searchIndexer.status(who.id)).pending).toBe(0);

        const reworded = await post('every morning before work: green tea');
        const different = await post('green tea every evening after work');
        // Named in supersedes: replacing it by its own words reworded is a new entry, not a duplicate.
        const rewrite = await post('on weekdays after lunch black coffee', { supersedes: [replaceable.body.data.id] });
        expect(different.status).toBe(201);
        expect(rewrite.status).toBe(201);
        if (app === strict) {
          expect(reworded.status).toBe(200);
          expect(reworded.body).toMatchObject({ duplicateOf: stored.body.data.id, matchedBy: 'meaning', data: { seenCount: 2, content: 'green tea every morning before work' } });
          const audit = await app.request('GET', '/api/v1/audit/log', { token: who.token, query: { action: 'memory.duplicate' } });
          expect(audit.body.data[0]).toMatchObject({ targetId: stored.body.data.id, details: { matchedBy: 'meaning' } });
        } else {
          expect(reworded.status).toBe(201);
        }
      }
    } finally {
      await strict.close();
      await textOnly.close();
      await fake.close();
    }
  });
});

describe('an existing database', () => {
  it('keys its entries when migrated: nothing lost, identical ones all kept, the oldest holding the text', async () => {
    const app = await createTestApp();
    try {
      const who = await app.createOwner('Dedup Upgrader');
      const db = app.storage.db;
      // The table as the version before this one left it, then the migration run on it (directly:
      // later migrations may follow it, and Kysely runs only a prefix).
      await sql`DROP INDEX IF EXISTS memory_entries_owner_content_key`.execute(db);
      for (const column of ['content_key', 'seen_count', 'last_seen_at', 'last_seen_by']) await sql`ALTER TABLE memory_entries DROP COLUMN ${sql.ref(column)}`.execute(db);
      const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s)).toISOString();
      const rows = [
        { id: newId('mem'), content: 'Likes jazz', created_at: at(1) },
        { id: newId('mem'), content: 'likes jazz.', created_at: at(2) },
        { id: newId('mem'), content: 'Likes folk', created_at: at(3) },
      ];
      for (const row of rows) await db.insertInto('memory_entries').values({ ...row, owner_id: who.id, updated_at: row.created_at } as never).execute();
      await dedupMigration.up(db as never, { dialect: app.storage.dialect });
      await textKeysMigration.up(db as never, { dialect: app.storage.dialect });
      await app.restart();

      const listed = await app.request('GET', '/api/v1/memory', { token: who.token });
      expect(listed.body.data.map((e: { id: string }) => e.id).sort()).toEqual(rows.map((r) => r.id).sort());
      for (const entry of listed.body.data) expect(entry).toMatchObject({ seenCount: 1, lastSeenAt: null, lastSeenBy: null });
      const again = await app.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'LIKES JAZZ' } });
      expect(again.status).toBe(200);
      expect(again.body.duplicateOf).toBe(rows[0]!.id);
      expect((await app.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'likes folk' } })).body.duplicateOf).toBe(rows[2]!.id);
    } finally {
      await app.close();
    }
  });
});

/**
 * The texts the server knows are held: on SQLite kept in the process (memory.keys.ts), read from
 * the table once per process and owner, on PostgreSQL a unique index. The same answers on both.
 */
describe('the texts an owner holds, as the server knows them', () => {
  it('are the table’s after a restart: a stored text is still a duplicate, a changed, superseded or deleted one’s is new', async () => {
    const app = await createTestApp();
    try {
      const who = await app.createOwner('Keys Restarter');
      const post = (content: string, extra: Record<string, unknown> = {}) => app.request('POST', '/api/v1/memory', { token: who.token, body: { content, ...extra } });
      const kept = (await post('Plays the cello')).body.data;
      const changed = (await post('Lives in Ghent')).body.data;
      const superseded = (await post('Works at Acme')).body.data;
      const deleted = (await post('Has a cat')).body.data;
      expect((await app.request('PATCH', `/api/v1/memory/${changed.id}`, { token: who.token, body: { content: 'Lives in Bruges' } })).status).toBe(200);
      const newer = (await post('Works at Globex', { supersedes: [superseded.id] })).body.data;
      expect((await app.request('DELETE', `/api/v1/memory/${deleted.id}`, { token: who.token })).status).toBe(200);
      await app.restart();

      expect((await post('plays the cello.')).body).toMatchObject({ duplicateOf: kept.id });
      expect((await post('lives in bruges')).body).toMatchObject({ duplicateOf: changed.id });
      expect((await post('works at globex')).body).toMatchObject({ duplicateOf: newer.id });
      for (const text of ['Lives in Ghent', 'Works at Acme', 'Has a cat']) {
        const res = await post(text);
        expect(res.status, text).toBe(201);
        // Written again, each is the text's holder from now on.
        expect((await post(text.toUpperCase())).body).toMatchObject({ duplicateOf: res.body.data.id });
      }
      const current = (await app.request('GET', '/api/v1/memory', { token: who.token, query: { limit: '50' } })).body.data as Array<{ content: string }>;
      expect(current.map((e) => e.content).sort()).toEqual(['Has a cat', 'Lives in Bruges', 'Lives in Ghent', 'Plays the cello', 'Works at Acme', 'Works at Globex']);
    } finally {
      await app.close();
    }
  });

  it('tells apart two texts whose kept hashes are the same', async () => {
    // Two texts whose keys the process files under one 30-bit hash (found by trying, in some 40,000 texts).
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i++) {
      const text = `Collision candidate number ${i}`;
      const hash = keyHash(sameTextKey(text));
      const other = seen.get(hash);
      if (other !== undefined) pair = [other, text];
      else seen.set(hash, text);
    }
    const who = await t.createOwner('Keys Collider');
    const first = await created(who.token, { content: pair[0] });
    const second = await created(who.token, { content: pair[1] });
    expect(second.id).not.toBe(first.id);
    expect((await write(who.token, { content: pair[0] })).body).toMatchObject({ duplicateOf: first.id });
    expect((await write(who.token, { content: pair[1] })).body).toMatchObject({ duplicateOf: second.id });
    // Superseding one leaves the other holding its own text.
    await created(who.token, { content: 'Something else entirely', supersedes: [first.id] });
    expect((await write(who.token, { content: pair[1] })).body).toMatchObject({ duplicateOf: second.id });
    expect((await write(who.token, { content: pair[0] })).status).toBe(201);
  });
});
