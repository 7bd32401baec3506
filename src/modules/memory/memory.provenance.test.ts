import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { policyToken } from '../../../test/approvals.helpers.js';
import { pkce, startPublicApp } from '../../../test/authorization.helpers.js';
import { freezeDate } from '../../../test/clients.js';
import { expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { SESSION_BINDING_HEADER } from '../../http/access.js';
import { IN_PROCESS_HEADER } from '../../http/channel.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import { MEMORY_TAGS_MAX, SOURCE_QUOTE_MAX_LENGTH, SOURCE_REF_MAX_LENGTH } from './memory.schemas.js';

/**
 * Who wrote an entry and what it is (docs/decisions/memory.md): the author recorded by the server
 * on every channel, never taken from the client; the structure a writer may give; the filters.
 */
let t: TestApp;
let base: string;
let owner: Owner;
const REDIRECT = 'http://127.0.0.1:33419/callback';

beforeAll(async () => {
  ({ t, base } = await startPublicApp());
  // The first account: handshakes go to it.
  owner = await t.createOwner('Provenance Owner');
});
afterAll(async () => t.close());

const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => ignoreFailure(c.close(), 'a client closed already is closed either way')));
});

async function tokenIdOf(secret: string): Promise<string> {
  return (await t.container.tokens.authenticate(secret))!.tokenId;
}

async function remember(token: string, body: Record<string, unknown>): Promise<any> {
  const res = await t.request('POST', '/api/v1/memory', { token, body });
  if (res.status !== 201) throw new Error(`remember failed: ${res.status} ${res.text}`);
  return res.body.data;
}

async function listed(token: string, query: Record<string, string | number | boolean> = {}): Promise<any[]> {
  const res = await t.request('GET', '/api/v1/memory', { token, query: { limit: 200, ...query } });
  expect(res.status).toBe(200);
  return res.body.data;
}

/** A token made by the owner, with a name of its own. */
async function namedToken(who: Owner, name: string, scopes = ['memory']): Promise<{ token: string; id: string }> {
  const res = await t.request('POST', '/api/v1/tokens', { token: who.token, body: { name, scopes } });
  expect(res.status).toBe(201);
  return { token: res.body.data.token, id: res.body.data.id };
}

describe('the author, recorded by the server', () => {
  it('records an API token: its id, name and kind, over the api channel', async () => {
    const { token, id } = await namedToken(owner, 'Notes script');
    const entry = await remember(token, { content: 'Takes the 8:10 train' });
    expect(entry.author).toEqual({ channel: 'api', token: { id, name: 'Notes script', kind: 'api' }, agent: null });
    expect(entry.editedBy).toBeNull();
  });

  it('refuses an author, a channel or an editor in the body, and a forged in-process header changes nothing', async () => {
    const { token, id } = await namedToken(owner, 'Forger');
    for (const forged of [
      { author: { channel: 'console', token: { id: 'tok_owner', name: 'Owner', kind: 'master' }, agent: null } },
      { channel: 'console' },
      { editedBy: null },
      { author_token_id: 'tok_x' },
    ]) {
      const res = expectError(await t.request('POST', '/api/v1/memory', { token, body: { content: 'forged', ...forged } }), 400, 'VALIDATION_ERROR');
      expect(res.message).toContain(Object.keys(forged)[0]);
    }
    const entry = await remember(token, { content: 'claimed to be MCP' });
    const patched = await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token, body: { content: 'edited', author: { channel: 'mcp' } } });
    expectError(patched, 400, 'VALIDATION_ERROR');
    for (const value of ['mcp', 'mcp not-the-secret', `mcp ${'A'.repeat(43)}`]) {
      const res = await t.request('POST', '/api/v1/memory', { token, body: { content: `over MCP, it says (${value})` }, headers: { [IN_PROCESS_HEADER]: value } });
      expect(res.status).toBe(201);
      expect(res.body.data.author).toEqual({ channel: 'api', token: { id, name: 'Forger', kind: 'api' }, agent: null });
    }
  });

  it('keeps the name the token had when it wrote', async () => {
    const { token, id } = await namedToken(owner, 'Before');
    const entry = await remember(token, { content: 'named before' });
    expect((await t.request('PUT', `/api/v1/tokens/${id}`, { token: owner.token, body: { name: 'After' } })).status).toBe(200);
    const [stored] = (await listed(owner.token, { author: id })) as Array<{ id: string; author: { token: { name: string } } }>;
    expect(stored!.id).toBe(entry.id);
    expect(stored!.author.token.name).toBe('Before');
  });

  it('records an MCP tool call as the mcp channel, and its change as the last editor', async () => {
    const { token, id } = await namedToken(owner, 'Desktop assistant', ['read', 'memory']);
    const client = new Client({ name: 'provenance-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    const added = await client.callTool({
      name: 'add_memory',
      arguments: { content: 'Allergic to penicillin', kind: 'fact', tags: ['Health'], pinned: true, source: { kind: 'conversation', ref: 'chat-42', quote: 'I am allergic to penicillin' } },
    });
    expect(added.isError).toBeFalsy();
    const entry = added.structuredContent as any;
    expect(entry).toMatchObject({
      kind: 'fact',
      tags: ['health'],
      pinned: true,
      source: { kind: 'conversation', ref: 'chat-42', quote: 'I am allergic to penicillin' },
      author: { channel: 'mcp', token: { id, name: 'Desktop assistant', kind: 'api' }, agent: null },
    });

    const master = await tokenIdOf(owner.token);
    const byOwner = await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: owner.token, body: { tags: ['health', 'medical'] } });
    expect(byOwner.body.data.editedBy).toEqual({ channel: 'api', token: { id: master, name: expect.any(String), kind: 'master' }, agent: null });
    const updated = await client.callTool({ name: 'update_memory', arguments: { id: entry.id, content: 'Allergic to penicillin and amoxicillin' } });
    expect(updated.isError).toBeFalsy();
    const changed = updated.structuredContent as any;
    expect(changed).toMatchObject({ content: 'Allergic to penicillin and amoxicillin', tags: ['health', 'medical'], pinned: true, kind: 'fact' });
    // The author stays who wrote it; the last editor is the tool call.
    expect(changed.author).toEqual(entry.author);
    expect(changed.editedBy).toEqual({ channel: 'mcp', token: { id, name: 'Desktop assistant', kind: 'api' }, agent: null });

    const found = await client.callTool({ name: 'search_memory', arguments: { tag: 'medical' } });
    expect((found.structuredContent as { items: Array<{ id: string }> }).items.map((e) => e.id)).toEqual([entry.id]);
  });

  it('records a held write, once approved, with the channel it was asked over', async () => {
    const held = await policyToken(t, owner, ['read', 'memory'], { 'memory.write': 'ask' });
    const client = new Client({ name: 'provenance-held', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${held.token}` } } }));
    clients.push(client);
    const asked = await client.callTool({ name: 'add_memory', arguments: { content: 'Held over MCP', kind: 'fact' } });
    // A held call is a normal result naming its approval (check_approval follows it).
    expect(asked.isError).toBeFalsy();
    const overMcp = (asked.structuredContent as { approvalId: string }).approvalId;
    const overApi = (await t.request('POST', '/api/v1/memory', { token: held.token, body: { content: 'Held over the API' } })).body.data.approvalId as string;
    for (const id of [overMcp, overApi]) {
      expect((await t.request('POST', `/api/v1/approvals/${id}/approve`, { token: owner.token })).body.data.status).toBe('executed');
    }
    const written = await listed(owner.token, { author: held.id });
    expect(written.map((e) => [e.content, e.author.channel])).toEqual([
      ['Held over the API', 'api'],
      ['Held over MCP', 'mcp'],
    ]);
    expect(written[1]).toMatchObject({ kind: 'fact', author: { token: { id: held.id, kind: 'api' } } });
  });

  it("records the console's session as the console channel", async () => {
    const ownPage = { 'sec-fetch-site': 'same-origin', origin: base };
    const signed = await t.request('POST', '/api/v1/auth/session', { body: { email: owner.email, password: owner.password }, headers: ownPage });
    expect(signed.status).toBe(200);
    const cookie = String(signed.headers['set-cookie']).split(';')[0]!;
    const headers = { ...ownPage, cookie, [SESSION_BINDING_HEADER]: signed.body.data.sessionBinding as string };
    const res = await t.request('POST', '/api/v1/memory', { body: { content: 'Typed in the console', kind: 'preference' }, headers });
    expect(res.status).toBe(201);
    expect(res.body.data.author).toMatchObject({ channel: 'console', token: { kind: 'session' }, agent: null });
    // The same session's token sent as a bearer token is a client of the API, not the console.
    const login = await t.login(owner);
    expect((await remember(login, { content: 'From a script with a login token' })).author).toMatchObject({ channel: 'api', token: { kind: 'session' } });
    const consoleEntries = await listed(owner.token, { channel: 'console' });
    expect(consoleEntries.map((e) => e.content)).toEqual(['Typed in the console']);
  });

  it('names the agent behind a handshake token', async () => {
    const asked = await t.request('POST', '/api/v1/handshakes', { body: { agentId: 'travel-agent-7', requestedScopes: ['read'], message: 'plans trips' } });
    expect(asked.status).toBe(201);
    const handshakeId = asked.body.data.handshakeId as string;
    const approved = await t.request('POST', `/api/v1/handshakes/${handshakeId}/approve`, { token: owner.token, body: { scopes: ['memory'] } });
    expect(approved.status).toBe(200);
    const entry = await remember(approved.body.data.token, { content: 'Prefers aisle seats', kind: 'preference' });
    expect(entry.author).toMatchObject({ channel: 'api', token: { kind: 'handshake' }, agent: { kind: 'handshake', id: handshakeId, name: 'travel-agent-7' } });
  });

  it('names the OAuth client behind an OAuth token', async () => {
    const registered = await fetch(`${base}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Pocket Assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    const client = (await registered.json()) as { client_id: string };
    const { verifier, challenge } = pkce();
    const authorize = new URL(`${base}/authorize`);
    for (const [key, value] of Object.entries({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's', scope: 'memory', resource: `${base}/mcp` })) {
      authorize.searchParams.set(key, value);
    }
    const html = await (await fetch(authorize, { redirect: 'manual' })).text();
    const form = new URLSearchParams({
      request_id: /name="request_id" value="([^"]+)"/.exec(html)![1]!,
      csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]!,
      decision: 'approve',
      email: owner.email,
      password: owner.password,
      scope: 'memory',
    });
    const consented = await fetch(`${base}/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, 'sec-fetch-site': 'same-origin' },
      body: form,
    });
    const code = new URL(consented.headers.get('location')!).searchParams.get('code')!;
    const tokens = (await (
      await fetch(`${base}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id, resource: `${base}/mcp` }),
      })
    ).json()) as { access_token: string };
    const entry = await remember(tokens.access_token, { content: 'Reads before sleeping' });
    expect(entry.author).toMatchObject({ channel: 'api', token: { kind: 'oauth' }, agent: { kind: 'oauth_client', id: client.client_id, name: 'Pocket Assistant' } });
  });

  it('reads entries stored before authors were recorded as notes by nobody known, over an unknown channel', async () => {
    const old = await t.createOwner('Old Data');
    const now = isoNow();
    const id = newId('mem');
    // A row as stored before migration 0034: only the columns it had.
    await t.storage.db.insertInto('memory_entries').values({ id, owner_id: old.id, content: 'from before', created_at: now, updated_at: now }).execute();
    const [entry] = await listed(old.token);
    expect(entry).toEqual({
      id,
      content: 'from before',
      created_at: now,
      updatedAt: now,
      kind: 'note',
      tags: [],
      pinned: false,
      validFrom: null,
      validUntil: null,
      source: null,
      author: { channel: 'unknown', token: null, agent: null },
      editedBy: null,
      supersedes: [],
      supersededBy: null,
      supersededAt: null,
      seenCount: 1,
      lastSeenAt: null,
      lastSeenBy: null,
    });
    expect((await listed(old.token, { channel: 'unknown' })).map((e) => e.id)).toEqual([id]);
    const patched = await t.request('PATCH', `/api/v1/memory/${id}`, { token: old.token, body: { pinned: true } });
    expect(patched.body.data).toMatchObject({ content: 'from before', pinned: true, author: { channel: 'unknown', token: null } });
  });
});

describe('structure', () => {
  let writer: { token: string; id: string };
  beforeAll(async () => {
    writer = await namedToken(owner, 'Structured writer');
  });

  it('stores kind, tags (normalized, repeats once), pinned, the validity window in UTC, and the source', async () => {
    const entry = await remember(writer.token, {
      content: 'Works at Acme until the end of March',
      kind: 'event',
      tags: ['Work Projects', '  work-projects ', 'ACME', 'été'],
      pinned: true,
      validFrom: '2026-01-01T09:00:00+01:00',
      validUntil: '2026-03-31T23:59:59Z',
      source: { kind: 'mail', ref: 'msg-123' },
    });
    expect(entry).toMatchObject({
      kind: 'event',
      tags: ['work-projects', 'acme', 'été'],
      pinned: true,
      validFrom: '2026-01-01T08:00:00.000Z',
      validUntil: '2026-03-31T23:59:59.000Z',
      source: { kind: 'mail', ref: 'msg-123' },
    });
  });

  it('changes any field alone with PATCH, keeps the others, and clears with null', async () => {
    const entry = await remember(writer.token, { content: 'Likes jazz', kind: 'preference', tags: ['music'], source: { kind: 'other', quote: 'jazz!' } });
    const pinned = await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: writer.token, body: { pinned: true } });
    expect(pinned.status).toBe(200);
    expect(pinned.body.data).toMatchObject({ content: 'Likes jazz', kind: 'preference', tags: ['music'], pinned: true, source: { kind: 'other', quote: 'jazz!' } });
    const cleared = await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: writer.token, body: { source: null, tags: [], validUntil: '2030-01-01T00:00:00Z' } });
    expect(cleared.body.data).toMatchObject({ content: 'Likes jazz', source: null, tags: [], validUntil: '2030-01-01T00:00:00.000Z', validFrom: null });
    const window = await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: writer.token, body: { validUntil: null } });
    expect(window.body.data.validUntil).toBeNull();
    expectError(await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: writer.token, body: {} }), 400, 'VALIDATION_ERROR');
  });

  it('refuses a window that ends before it starts, also when a change moves only one end', async () => {
    const refused = expectError(
      await t.request('POST', '/api/v1/memory', { token: writer.token, body: { content: 'x', validFrom: '2026-05-01T00:00:00Z', validUntil: '2026-04-01T00:00:00Z' } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(refused.details).toEqual([{ field: 'body.validUntil', message: 'must be after validFrom' }]);
    expectError(
      await t.request('POST', '/api/v1/memory', { token: writer.token, body: { content: 'x', validFrom: '2026-05-01T00:00:00Z', validUntil: '2026-05-01T02:00:00+02:00' } }),
      400,
      'VALIDATION_ERROR',
    );
    const entry = await remember(writer.token, { content: 'In Lisbon in May', validFrom: '2099-05-01T00:00:00Z', validUntil: '2099-06-01T00:00:00Z' });
    const moved = expectError(await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: writer.token, body: { validUntil: '2099-04-30T00:00:00Z' } }), 400, 'VALIDATION_ERROR');
    expect(moved.details).toEqual([{ field: 'body.validUntil', message: 'must be after validFrom' }]);
    // Nothing of the refused change was kept.
    const [kept] = (await listed(writer.token, { author: writer.id })).filter((e) => e.id === entry.id);
    expect(kept).toMatchObject({ validUntil: '2099-06-01T00:00:00.000Z', editedBy: null });
    expectError(await t.request('POST', '/api/v1/memory', { token: writer.token, body: { content: 'x', validFrom: 'next tuesday' } }), 400, 'VALIDATION_ERROR');
  });

  it.each([
    ['too many tags', { tags: Array.from({ length: MEMORY_TAGS_MAX + 1 }, (_, i) => `t${i}`) }],
    ['a tag too long', { tags: ['x'.repeat(65)] }],
    ['an empty tag', { tags: [''] }],
    ['a tag of spaces', { tags: ['   '] }],
    ['a tag with a quote', { tags: ['say "hi"'] }],
    ['a tag with a comma', { tags: ['a,b'] }],
    ['an unknown kind', { kind: 'secret' }],
    ['a source of an unknown kind', { source: { kind: 'rumour' } }],
    ['a source without a kind', { source: { ref: 'x' } }],
    ['a source with another field', { source: { kind: 'url', ref: 'https://example.org', author: 'me' } }],
    ['a source ref too long', { source: { kind: 'url', ref: `https://example.org/${'a'.repeat(SOURCE_REF_MAX_LENGTH)}` } }],
    ['a source quote too long', { source: { kind: 'document', quote: 'q'.repeat(SOURCE_QUOTE_MAX_LENGTH + 1) } }],
    ['pinned as a word', { pinned: 'yes' }],
  ])('refuses %s with 400, on creation and on change', async (_what, fields) => {
    expectError(await t.request('POST', '/api/v1/memory', { token: writer.token, body: { content: 'bounded', ...fields } }), 400, 'VALIDATION_ERROR');
    const entry = await remember(writer.token, { content: `to change: ${_what}` });
    expectError(await t.request('PATCH', `/api/v1/memory/${entry.id}`, { token: writer.token, body: fields }), 400, 'VALIDATION_ERROR');
  });

  it('accepts the bounds exactly', async () => {
    const entry = await remember(writer.token, {
      content: 'at the bounds',
      tags: Array.from({ length: MEMORY_TAGS_MAX }, (_, i) => `${String(i).padStart(2, '0')}${'t'.repeat(62)}`),
      source: { kind: 'document', ref: 'r'.repeat(SOURCE_REF_MAX_LENGTH), quote: 'q'.repeat(SOURCE_QUOTE_MAX_LENGTH) },
    });
    expect(entry.tags).toHaveLength(MEMORY_TAGS_MAX);
    expect(entry.source.quote).toHaveLength(SOURCE_QUOTE_MAX_LENGTH);
  });
});

describe('filters', () => {
  let other: Owner;
  let a: { token: string; id: string };
  let b: { token: string; id: string };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    other = await t.createOwner('Filtered Other');
    a = await namedToken(other, 'Agent A');
    b = await namedToken(other, 'Agent B');
    ids.fact = (await remember(a.token, { content: 'Blood type O negative', kind: 'fact', tags: ['health'], pinned: true })).id;
    ids.pref = (await remember(a.token, { content: 'Prefers window seats', kind: 'preference', tags: ['travel'] })).id;
    ids.note = (await remember(b.token, { content: 'Window cleaner comes Fridays' })).id;
    ids.instruction = (await remember(b.token, { content: 'Always answer in French', kind: 'instruction', tags: ['style', 'health'], pinned: true })).id;
  });

  const idsOf = (entries: any[]) => entries.map((e: { id: string }) => e.id);

  it('narrows by author, channel, kind, tag and pinned, newest first, and combined', async () => {
    expect(idsOf(await listed(other.token, { author: a.id }))).toEqual([ids.pref, ids.fact]);
    expect(idsOf(await listed(other.token, { author: b.id }))).toEqual([ids.instruction, ids.note]);
    expect(idsOf(await listed(other.token, { channel: 'api' }))).toEqual([ids.instruction, ids.note, ids.pref, ids.fact]);
    expect(idsOf(await listed(other.token, { channel: 'mcp' }))).toEqual([]);
    expect(idsOf(await listed(other.token, { kind: 'note' }))).toEqual([ids.note]);
    expect(idsOf(await listed(other.token, { tag: 'Health' }))).toEqual([ids.instruction, ids.fact]);
    expect(idsOf(await listed(other.token, { pinned: true }))).toEqual([ids.instruction, ids.fact]);
    expect(idsOf(await listed(other.token, { pinned: false }))).toEqual([ids.note, ids.pref]);
    expect(idsOf(await listed(other.token, { author: a.id, tag: 'health', pinned: true, kind: 'fact' }))).toEqual([ids.fact]);
    expect(idsOf(await listed(other.token, { author: b.id, kind: 'fact' }))).toEqual([]);
  });

  it('pages a filtered list by cursor', async () => {
    const first = await t.request('GET', '/api/v1/memory', { token: other.token, query: { tag: 'health', limit: 1 } });
    expect(idsOf(first.body.data)).toEqual([ids.instruction]);
    expect(first.body.nextCursor).toBe(ids.instruction);
    const second = await t.request('GET', '/api/v1/memory', { token: other.token, query: { tag: 'health', limit: 1, cursor: first.body.nextCursor } });
    expect(idsOf(second.body.data)).toEqual([ids.fact]);
  });

  it('sees a new entry at once in a filtered list it was read before', async () => {
    expect(idsOf(await listed(other.token, { tag: 'travel' }))).toEqual([ids.pref]);
    const fresh = await remember(b.token, { content: 'Train to Porto', tags: ['travel'] });
    expect(idsOf(await listed(other.token, { tag: 'travel' }))).toEqual([fresh.id, ids.pref]);
    await t.request('DELETE', `/api/v1/memory/${fresh.id}`, { token: other.token });
  });

  it('narrows a search too', async () => {
    expect(idsOf(await listed(other.token, { q: 'window' }))).toEqual(expect.arrayContaining([ids.pref, ids.note]));
    expect(idsOf(await listed(other.token, { q: 'window', author: b.id }))).toEqual([ids.note]);
    expect(idsOf(await listed(other.token, { q: 'window', kind: 'preference' }))).toEqual([ids.pref]);
  });

  it('takes a tag as tags are written, and refuses one that cannot be a tag', async () => {
    expect(idsOf(await listed(other.token, { tag: ' HEALTH ' }))).toEqual([ids.instruction, ids.fact]);
    // A tag is matched whole: neither part of one nor a LIKE wildcard matches.
    expect(await listed(other.token, { tag: 'heal' })).toEqual([]);
    expect(await listed(other.token, { tag: 'h_alth' })).toEqual([]);
    const refused = expectError(await t.request('GET', '/api/v1/memory', { token: other.token, query: { tag: '%' } }), 400, 'VALIDATION_ERROR');
    expect(refused.details).toEqual([{ field: 'querystring.tag', message: 'is not a valid tag' }]);
    expectError(await t.request('GET', '/api/v1/memory', { token: other.token, query: { channel: 'email' } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('GET', '/api/v1/memory', { token: other.token, query: { kind: 'rumour' } }), 400, 'VALIDATION_ERROR');
  });

  it("never shows another owner's entries, whatever the filter", async () => {
    // The owner of this file's other tests filters by the tokens of this one's agents.
    expect(await listed(owner.token, { author: a.id })).toEqual([]);
    expect(await listed(owner.token, { tag: 'style' })).toEqual([]);
    expect(await listed(owner.token, { q: 'french' })).toEqual([]);
    expectError(await t.request('PATCH', `/api/v1/memory/${ids.fact}`, { token: owner.token, body: { pinned: false } }), 404, 'NOT_FOUND');
    expect((await listed(other.token, { pinned: true })).map((e) => e.id)).toContain(ids.fact);
  });
});

/** Resolves once the clock reads a later millisecond than `after` (an ISO time): a tick, not a fixed wait. */
async function nextMillisecond(after: string): Promise<void> {
  while (new Date().toISOString() <= after) await new Promise((resolve) => setImmediate(resolve));
}

describe('facts that change: supersedes, history, asOf', () => {
  let who: Owner;
  beforeAll(async () => {
    who = await t.createOwner('Changing Facts');
  });

  it('keeps the old entry, links both ways, and leaves it out of lists, search and the context by default', async () => {
    const old = await remember(who.token, { content: 'Lives in Berlin', kind: 'fact', tags: ['home'] });
    // Times are kept to the millisecond: "current at old's time" must not hold the next entry too.
    await nextMillisecond(old.created_at);
    const other = await remember(who.token, { content: 'Has a cat called Berlin' });
    const newer = await remember(who.token, { content: 'Lives in Lisbon since May', kind: 'fact', tags: ['home'], supersedes: [old.id, old.id] });
    expect(newer).toMatchObject({ supersedes: [old.id], supersededBy: null, supersededAt: null });

    const ids = (entries: any[]) => entries.map((e: { id: string }) => e.id);
    expect(ids(await listed(who.token))).toEqual([newer.id, other.id]);
    expect(ids(await listed(who.token, { q: 'berlin' }))).toEqual([other.id]);
    expect(ids(await listed(who.token, { tag: 'home' }))).toEqual([newer.id]);
    const context = await t.request('GET', '/api/v1/gateway/context', { token: who.token });
    expect(ids(context.body.data.memory.entries)).toEqual([newer.id, other.id]);

    const history = await listed(who.token, { include: 'history' });
    expect(ids(history)).toEqual([newer.id, other.id, old.id]);
    expect(history[2]).toMatchObject({ content: 'Lives in Berlin', supersededBy: newer.id, supersededAt: newer.created_at, supersedes: [] });
    expect(ids(await listed(who.token, { q: 'berlin', include: 'history' }))).toEqual(expect.arrayContaining([old.id, other.id]));

    // A fact that changes again: the chain, oldest first, from any of its entries.
    const latest = await t.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'Lives in Porto', supersedes: [newer.id] } });
    expect(latest.status).toBe(201);
    for (const id of [old.id, newer.id, latest.body.data.id]) {
      const chain = await t.request('GET', `/api/v1/memory/${id}/history`, { token: who.token });
      expect(chain.status).toBe(200);
      expect(ids(chain.body.data)).toEqual([old.id, newer.id, latest.body.data.id]);
    }
    expect(ids((await t.request('GET', `/api/v1/memory/${other.id}/history`, { token: who.token })).body.data)).toEqual([other.id]);

    // What was current at each moment.
    expect(ids(await listed(who.token, { asOf: old.created_at }))).toEqual([old.id]);
    expect(ids(await listed(who.token, { asOf: newer.created_at }))).toEqual([newer.id, other.id]);
    expect(ids(await listed(who.token, { asOf: '2000-01-01T00:00:00Z' }))).toEqual([]);
    expect(ids(await listed(who.token, { asOf: old.created_at, q: 'berlin' }))).toEqual([old.id]);
  });

  it('supersedes with PATCH supersededBy, given alone', async () => {
    const old = await remember(who.token, { content: 'Drinks coffee' });
    const newer = await remember(who.token, { content: 'Drinks tea now' });
    expectError(await t.request('PATCH', `/api/v1/memory/${old.id}`, { token: who.token, body: { supersededBy: newer.id, pinned: true } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PATCH', `/api/v1/memory/${old.id}`, { token: who.token, body: { supersededBy: old.id } }), 400, 'VALIDATION_ERROR');
    const marked = await t.request('PATCH', `/api/v1/memory/${old.id}`, { token: who.token, body: { supersededBy: newer.id } });
    expect(marked.status).toBe(200);
    expect(marked.body.data).toMatchObject({ id: old.id, supersededBy: newer.id, supersededAt: expect.any(String) });
    const [fresh] = (await listed(who.token, { include: 'history' })).filter((e) => e.id === newer.id);
    expect(fresh.supersedes).toEqual([old.id]);
    // Already superseded: it is replaced by its successor, not again.
    const third = await remember(who.token, { content: 'Drinks water' });
    expectError(await t.request('PATCH', `/api/v1/memory/${old.id}`, { token: who.token, body: { supersededBy: third.id } }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'x', supersedes: [old.id] } }), 404, 'NOT_FOUND');
  });

  it("refuses to supersede what is not the owner's current entry, and writes nothing then", async () => {
    const stranger = await t.createOwner('Stranger');
    const theirs = await remember(stranger.token, { content: 'Not yours' });
    const mine = await remember(who.token, { content: 'Mine, current' });
    const before = (await listed(who.token, { include: 'history' })).length;
    const refused = expectError(
      await t.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'takes over', supersedes: [mine.id, theirs.id, 'mem_nothing'] } }),
      404,
      'NOT_FOUND',
    );
    expect(refused.details).toEqual({ field: 'supersedes', ids: [theirs.id, 'mem_nothing'] });
    expect((await listed(who.token, { include: 'history' })).length).toBe(before);
    expect((await listed(who.token)).find((e) => e.id === mine.id)).toMatchObject({ supersededBy: null });
    expect((await listed(stranger.token))[0]).toMatchObject({ id: theirs.id, supersededBy: null });
    expectError(await t.request('PATCH', `/api/v1/memory/${theirs.id}`, { token: who.token, body: { supersededBy: mine.id } }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `/api/v1/memory/${theirs.id}/history`, { token: who.token }), 404, 'NOT_FOUND');
    expectError(
      await t.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'x', supersedes: Array.from({ length: 21 }, (_, i) => `mem_${i}`) } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('leaves expired entries out of lists and the context, and keeps them in the history', async () => {
    const owner2 = await t.createOwner('Expiring');
    const past = new Date(Date.now() - 60_000).toISOString();
    const soon = new Date(Date.now() + 60_000).toISOString();
    const expired = await remember(owner2.token, { content: 'Was in Rome last week', validFrom: '2026-01-01T00:00:00Z', validUntil: past });
    const lasting = await remember(owner2.token, { content: 'Likes Rome' });
    const ending = await remember(owner2.token, { content: 'In Rome right now', validUntil: soon });
    const ids = (entries: any[]) => entries.map((e: { id: string }) => e.id);
    expect(ids(await listed(owner2.token))).toEqual([ending.id, lasting.id]);
    expect(ids(await listed(owner2.token, { include: 'history' }))).toEqual([ending.id, lasting.id, expired.id]);
    expect(ids(await listed(owner2.token, { q: 'rome' }))).toEqual(expect.not.arrayContaining([expired.id]));
    expect(ids(await listed(owner2.token, { asOf: '2026-01-02T00:00:00Z' }))).toEqual([]);
    // Time passing expires an entry although nothing was written: a page kept from before is judged again.
    onTestFinished(freezeDate());
    vi.setSystemTime(Date.parse(soon) + 1);
    expect(ids(await listed(owner2.token))).toEqual([lasting.id]);
    const context = await t.request('GET', '/api/v1/gateway/context', { token: owner2.token });
    expect(ids(context.body.data.memory.entries)).toEqual([lasting.id]);
  });
});
