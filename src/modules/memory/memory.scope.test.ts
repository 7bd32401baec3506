import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPublicApp } from '../../../test/authorization.helpers.js';
import { expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';

/**
 * The pinned profile and memory limited by tags (docs/decisions/memory.md): pinned entries lead
 * the gateway context in the owner's order, within its budget; a token limited to tags reads,
 * searches, counts and writes only entries carrying one, over REST and MCP alike.
 */
let t: TestApp;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  // A small context cap, so that `total` and `truncated` are reached with few entries.
  ({ t, base } = await startPublicApp({ gatewayMemoryLimit: 6 }));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => ignoreFailure(c.close(), 'a client closed already is closed either way')));
  await t.close();
});

async function remember(token: string, body: Record<string, unknown>): Promise<any> {
  const res = await t.request('POST', '/api/v1/memory', { token, body });
  if (res.status !== 201) throw new Error(`remember failed: ${res.status} ${res.text}`);
  return res.body.data;
}

async function context(token: string, query: Record<string, string | number> = {}): Promise<any> {
  const res = await t.request('GET', '/api/v1/gateway/context', { token, query });
  expect(res.status).toBe(200);
  return res.body.data;
}

async function limitedToken(owner: Owner, memoryTags: string[] | undefined, scopes = ['memory', 'read']): Promise<{ token: string; id: string; data: any }> {
  const res = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: `Agent ${memoryTags?.join('+') ?? 'all'}`, scopes, ...(memoryTags ? { memoryTags } : {}) } });
  expect(res.status).toBe(201);
  return { token: res.body.data.token, id: res.body.data.id, data: res.body.data };
}

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'scope-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

const ids = (entries: Array<{ id: string }>) => entries.map((entry) => entry.id);

describe('the pinned profile', () => {
  let owner: Owner;
  let a: any;
  let b: any;
  let c: any;
  let plain: any[];

  beforeAll(async () => {
    owner = await t.createOwner('Profile Owner');
    a = await remember(owner.token, { content: 'Name: Ada; lives in Lyon', kind: 'fact', pinned: true });
    plain = [];
    for (let i = 0; i < 3; i++) plain.push(await remember(owner.token, { content: `Ordinary note ${i} about the garden` }));
    b = await remember(owner.token, { content: 'Always answer in French', kind: 'instruction', pinned: true });
    c = await remember(owner.token, { content: 'Allergic to penicillin', kind: 'fact', pinned: true });
    for (let i = 3; i < 6; i++) plain.push(await remember(owner.token, { content: `Ordinary note ${i} about the dentist` }));
  });

  it('leads the context, oldest pinned first until the owner orders them, with and without a task', async () => {
    const data = await context(owner.token);
    expect(data.memory.pinned).toBe(3);
    expect(ids(data.memory.entries).slice(0, 3)).toEqual([a.id, b.id, c.id]);
    // Then the newest others, up to the cap of 6; the total counts every entry.
    expect(ids(data.memory.entries).slice(3)).toEqual([plain[5].id, plain[4].id, plain[3].id]);
    expect(data.memory).toMatchObject({ total: 9, truncated: true });

    const task = await context(owner.token, { task: 'garden' });
    expect(ids(task.memory.entries).slice(0, 3)).toEqual([a.id, b.id, c.id]);
    expect(task.memory.pinned).toBe(3);
    // The matches come after the profile, before the newest.
    expect(task.memory.relevant).toBe(3);
    expect(ids(task.memory.entries).slice(3)).toEqual(expect.arrayContaining([plain[0].id, plain[1].id, plain[2].id]));
  });

  it('keeps the order the owner sets, names only pinned entries, and answers the profile in it', async () => {
    const set = await t.request('PUT', '/api/v1/memory/profile/order', { token: owner.token, body: { order: [c.id, a.id] } });
    expect(set.status).toBe(200);
    // Those named first, then the pinned one not named.
    expect(ids(set.body.data)).toEqual([c.id, a.id, b.id]);
    expect(ids((await t.request('GET', '/api/v1/memory/profile', { token: owner.token })).body.data)).toEqual([c.id, a.id, b.id]);
    expect(ids((await context(owner.token)).memory.entries).slice(0, 3)).toEqual([c.id, a.id, b.id]);
    expect(ids((await context(owner.token, { task: 'dentist' })).memory.entries).slice(0, 3)).toEqual([c.id, a.id, b.id]);

    // An entry not pinned, an unknown id or another owner's: 404 naming them, and nothing changes.
    const other = await t.createOwner('Other Profile Owner');
    const theirs = await remember(other.token, { content: 'Not yours', pinned: true });
    const refused = expectError(
      await t.request('PUT', '/api/v1/memory/profile/order', { token: owner.token, body: { order: [b.id, plain[0].id, theirs.id] } }),
      404,
      'NOT_FOUND',
    );
    expect((refused.details as { ids: string[] }).ids).toEqual([plain[0].id, theirs.id]);
    expect(ids((await t.request('GET', '/api/v1/memory/profile', { token: owner.token })).body.data)).toEqual([c.id, a.id, b.id]);
    expectError(await t.request('PUT', '/api/v1/memory/profile/order', { token: owner.token, body: { order: [a.id, a.id] } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PUT', '/api/v1/memory/profile/order', { token: owner.token, body: { order: [a.id], extra: 1 } }), 400, 'VALIDATION_ERROR');

    // The order is the owner's: an agent with the memory scope may read the profile, not reorder it.
    const agent = await t.tokenWithScopes(owner, ['memory']);
    expect((await t.request('GET', '/api/v1/memory/profile', { token: agent })).status).toBe(200);
    expectError(await t.request('PUT', '/api/v1/memory/profile/order', { token: agent, body: { order: [a.id] } }), 403, 'FORBIDDEN');
  });

  it('an entry unpinned leaves the profile, and pinned again it goes last; a superseded one leaves too', async () => {
    expect((await t.request('PATCH', `/api/v1/memory/${c.id}`, { token: owner.token, body: { pinned: false } })).status).toBe(200);
    expect(ids((await t.request('GET', '/api/v1/memory/profile', { token: owner.token })).body.data)).toEqual([a.id, b.id]);
    expect(ids((await context(owner.token)).memory.entries).slice(0, 2)).toEqual([a.id, b.id]);
    expect((await context(owner.token)).memory.pinned).toBe(2);
    expect((await t.request('PATCH', `/api/v1/memory/${c.id}`, { token: owner.token, body: { pinned: true } })).status).toBe(200);
    expect(ids((await t.request('GET', '/api/v1/memory/profile', { token: owner.token })).body.data)).toEqual([a.id, b.id, c.id]);

    const moved = await remember(owner.token, { content: 'Name: Ada; lives in Paris', kind: 'fact', pinned: true, supersedes: [a.id] });
    const profile = ids((await t.request('GET', '/api/v1/memory/profile', { token: owner.token })).body.data);
    expect(profile).toEqual([b.id, c.id, moved.id]);
    expect(ids((await context(owner.token)).memory.entries).slice(0, 3)).toEqual(profile);
  });

  it('two orders set at once leave one whole order, never a mix', async () => {
    const profile = ids((await t.request('GET', '/api/v1/memory/profile', { token: owner.token })).body.data);
    const one = [...profile].reverse();
    const two = [profile[1]!, profile[2]!, profile[0]!];
    const answers = await Promise.all([
      t.request('PUT', '/api/v1/memory/profile/order', { token: owner.token, body: { order: one } }),
      t.request('PUT', '/api/v1/memory/profile/order', { token: owner.token, body: { order: two } }),
    ]);
    expect(answers.map((res) => res.status)).toEqual([200, 200]);
    const final = ids((await t.request('GET', '/api/v1/memory/profile', { token: owner.token })).body.data);
    expect([JSON.stringify(one), JSON.stringify(two)]).toContain(JSON.stringify(final));
  });

  it('within a budget the profile comes first; pinned entries beyond it are cut in order, and the answer says so', async () => {
    const heavy = await t.createOwner('Heavy Profile Owner');
    const long = (i: number) => `Standing instruction ${i}: ${'keep every reply short, polite and in plain words; '.repeat(3)}`;
    const pinned: any[] = [];
    for (let i = 0; i < 5; i++) pinned.push(await remember(heavy.token, { content: long(i), kind: 'instruction', pinned: true }));
    await remember(heavy.token, { content: 'A recent note that the budget leaves out' });
    for (const maxTokens of [900, 1300]) {
      for (const task of [undefined, 'instruction']) {
        const data = await context(heavy.token, { maxTokens, ...(task ? { task } : {}) });
        const kept = ids(data.memory.entries);
        // As many pinned as fit, in the owner's order, and nothing else before them.
        expect(kept.length).toBeGreaterThan(0);
        expect(kept.length).toBeLessThan(5);
        expect(kept).toEqual(ids(pinned).slice(0, kept.length));
        expect(data.memory.pinned).toBe(kept.length);
        expect(data.memory.truncated).toBe(true);
        expect(data.budget.trimmed).toContain('memory');
        expect(data.budget.truncated).toBe(true);
        expect(data.budget.usedTokens).toBeLessThanOrEqual(maxTokens);
      }
    }
    // With room for all, the profile is whole and the note follows it.
    const roomy = await context(heavy.token, { maxTokens: 8000 });
    expect(ids(roomy.memory.entries).slice(0, 5)).toEqual(ids(pinned));
    expect(roomy.memory.entries).toHaveLength(6);
    expect(roomy.memory.truncated).toBe(false);
  });

  it('get_context over MCP leads with the profile too', async () => {
    const agent = await t.tokenWithScopes(owner, ['read', 'memory']);
    const client = await mcpClient(agent);
    const result = await client.callTool({ name: 'get_context', arguments: { task: 'garden' } });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as any;
    const profile = ids((await t.request('GET', '/api/v1/memory/profile', { token: owner.token })).body.data);
    expect(ids(data.memory.entries).slice(0, profile.length)).toEqual(profile);
    expect(data.memory.pinned).toBe(profile.length);
  });
});

describe('memory limited to tags', () => {
  let owner: Owner;
  let work: { token: string; id: string; data: any };
  let workEntries: any[];
  let hidden: any;
  let hiddenPinned: any;
  let chainOld: any;
  let chainHidden: any;

  beforeAll(async () => {
    owner = await t.createOwner('Scoped Owner');
    work = await limitedToken(owner, ['Work']);
    workEntries = [];
    workEntries.push(await remember(owner.token, { content: 'Quarterly report due Friday zebra', tags: ['work'] }));
    workEntries.push(await remember(owner.token, { content: 'Standup at nine zebra', tags: ['work', 'meetings'], pinned: true }));
    hidden = await remember(owner.token, { content: 'Secret family zebra plan', tags: ['family'] });
    hiddenPinned = await remember(owner.token, { content: 'Pinned personal zebra fact', pinned: true });
    await remember(owner.token, { content: 'Untagged zebra note' });
    // A chain through a hidden entry: a work fact replaced by a personal one.
    chainOld = await remember(owner.token, { content: 'Office in building A', tags: ['work'] });
    chainHidden = await remember(owner.token, { content: 'Works from home now, private', tags: ['home'], supersedes: [chainOld.id] });
  });

  it('is stored with the token, normalized, shown in its answers and its capabilities; the owner changes or lifts it', async () => {
    expect(work.data.memoryTags).toEqual(['work']);
    expect((await t.request('GET', `/api/v1/tokens/${work.id}`, { token: owner.token })).body.data.memoryTags).toEqual(['work']);
    const caps = await t.request('GET', '/api/v1/tokens/me/capabilities', { token: work.token });
    expect(caps.body.data.memoryTags).toEqual(['work']);
    expect((await t.request('GET', '/api/v1/tokens/me/capabilities', { token: owner.token })).body.data.memoryTags).toBeNull();
    expect((await context(work.token)).token.memoryTags).toEqual(['work']);

    const other = await limitedToken(owner, undefined);
    expect(other.data.memoryTags).toBeNull();
    const changed = await t.request('PUT', `/api/v1/tokens/${other.id}`, { token: owner.token, body: { memoryTags: ['Family  Plans', 'family plans', 'home'] } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.memoryTags).toEqual(['family-plans', 'home']);
    // The change holds from the very next request.
    expect((await t.request('GET', '/api/v1/tokens/me/capabilities', { token: other.token })).body.data.memoryTags).toEqual(['family-plans', 'home']);
    const lifted = await t.request('PUT', `/api/v1/tokens/${other.id}`, { token: owner.token, body: { memoryTags: null } });
    expect(lifted.body.data.memoryTags).toBeNull();

    expectError(await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'x', scopes: ['memory'], memoryTags: ['no spaces, "quotes"'] } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'x', scopes: ['memory'], memoryTags: [] } }), 400, 'VALIDATION_ERROR');
    const master = (await t.container.tokens.authenticate(owner.token))!.tokenId;
    expectError(await t.request('PUT', `/api/v1/tokens/${master}`, { token: owner.token, body: { memoryTags: ['work'] } }), 409, 'CONFLICT');
  });

  it('lists, searches and counts only entries carrying its tags', async () => {
    const list = await t.request('GET', '/api/v1/memory', { token: work.token, query: { limit: 200, include: 'history' } });
    expect(new Set(ids(list.body.data))).toEqual(new Set([...ids(workEntries), chainOld.id]));
    const searched = await t.request('GET', '/api/v1/memory', { token: work.token, query: { q: 'zebra', limit: 200 } });
    expect(ids(searched.body.data).sort()).toEqual(ids(workEntries).sort());
    const filtered = await t.request('GET', '/api/v1/memory', { token: work.token, query: { tag: 'family' } });
    expect(filtered.body.data).toEqual([]);
    const pinned = await t.request('GET', '/api/v1/memory', { token: work.token, query: { pinned: true } });
    expect(ids(pinned.body.data)).toEqual([workEntries[1].id]);

    const one = await t.request('GET', '/api/v1/search', { token: work.token, query: { q: 'zebra', types: 'memory', limit: 50 } });
    expect(one.status).toBe(200);
    expect(ids(one.body.data).sort()).toEqual(ids(workEntries).sort());
    expect(JSON.stringify(one.body)).not.toMatch(/Secret|personal|Untagged/);

    expect(ids((await t.request('GET', '/api/v1/memory/profile', { token: work.token })).body.data)).toEqual([workEntries[1].id]);
  });

  it('receives in its context only its entries, and a total that counts only them', async () => {
    const data = await context(work.token);
    expect(new Set(ids(data.memory.entries))).toEqual(new Set(ids(workEntries)));
    expect(data.memory.entries[0].id).toBe(workEntries[1].id);
    expect(data.memory).toMatchObject({ total: 2, truncated: false, pinned: 1 });
    const task = await context(work.token, { task: 'zebra plan', maxTokens: 4000 });
    expect(new Set(ids(task.memory.entries))).toEqual(new Set(ids(workEntries)));
    expect(JSON.stringify(task)).not.toMatch(/Secret|personal|Untagged|private/);

    // Past the cap, the total counts only the entries it may see (every stored one of them).
    for (let i = 0; i < 6; i++) await remember(work.token, { content: `Work item ${i}` });
    const capped = await context(work.token);
    expect(capped.memory.truncated).toBe(true);
    expect(capped.memory.total).toBe(9);
    expect(JSON.stringify(capped)).not.toMatch(/Secret|personal|Untagged|private/);
  });

  it('cannot get, change, delete or supersede an entry outside its tags: 404, as if unknown', async () => {
    for (const id of [hidden.id, hiddenPinned.id, chainHidden.id]) {
      expectError(await t.request('GET', `/api/v1/memory/${id}/history`, { token: work.token }), 404, 'NOT_FOUND');
      expectError(await t.request('PATCH', `/api/v1/memory/${id}`, { token: work.token, body: { content: 'taken over' } }), 404, 'NOT_FOUND');
      expectError(await t.request('PATCH', `/api/v1/memory/${id}`, { token: work.token, body: { supersededBy: workEntries[0].id } }), 404, 'NOT_FOUND');
      expectError(await t.request('DELETE', `/api/v1/memory/${id}`, { token: work.token }), 404, 'NOT_FOUND');
    }
    const supersede = expectError(await t.request('POST', '/api/v1/memory', { token: work.token, body: { content: 'replacing', tags: ['work'], supersedes: [hidden.id] } }), 404, 'NOT_FOUND');
    expect((supersede.details as { ids: string[] }).ids).toEqual([hidden.id]);
    // Nor make one of its entries replaced by a hidden one.
    expectError(await t.request('PATCH', `/api/v1/memory/${workEntries[0].id}`, { token: work.token, body: { supersededBy: hidden.id } }), 404, 'NOT_FOUND');
    // The hidden entries are untouched and still current for the owner.
    const mine = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: 200 } });
    expect(ids(mine.body.data)).toEqual(expect.arrayContaining([hidden.id, hiddenPinned.id, chainHidden.id, workEntries[0].id]));
    expect(mine.body.data.find((e: any) => e.id === hidden.id).content).toBe('Secret family zebra plan');
  });

  it('follows a history chain only through entries it sees, and never names a hidden one', async () => {
    const chain = await t.request('GET', `/api/v1/memory/${chainOld.id}/history`, { token: work.token });
    expect(chain.status).toBe(200);
    expect(ids(chain.body.data)).toEqual([chainOld.id]);
    expect(chain.body.data[0].supersededBy).toBeNull();
    expect(chain.body.data[0].supersededAt).not.toBeNull();
    const listed = await t.request('GET', '/api/v1/memory', { token: work.token, query: { include: 'history', limit: 200 } });
    expect(JSON.stringify(listed.body)).not.toContain(chainHidden.id);
    // The owner sees the whole chain.
    expect(ids((await t.request('GET', `/api/v1/memory/${chainOld.id}/history`, { token: owner.token })).body.data)).toEqual([chainOld.id, chainHidden.id]);
  });

  it('tags its writes: its one tag is added, a change must keep one, a token of several tags must name one', async () => {
    const plain = await remember(work.token, { content: 'Written without tags' });
    expect(plain.tags).toEqual(['work']);
    const other = await remember(work.token, { content: 'With a tag of its own', tags: ['Ideas'] });
    expect(other.tags).toEqual(['ideas', 'work']);
    const patched = await t.request('PATCH', `/api/v1/memory/${plain.id}`, { token: work.token, body: { tags: ['ideas'] } });
    expect(patched.body.data.tags).toEqual(['ideas', 'work']);

    const two = await limitedToken(owner, ['work', 'family']);
    const refused = expectError(await t.request('POST', '/api/v1/memory', { token: two.token, body: { content: 'Which one?' } }), 400, 'VALIDATION_ERROR');
    expect(refused.message).toContain('work or family');
    const kept = await remember(two.token, { content: 'Family dinner Sunday', tags: ['family'] });
    expectError(await t.request('PATCH', `/api/v1/memory/${kept.id}`, { token: two.token, body: { tags: ['other'] } }), 400, 'VALIDATION_ERROR');
    expect((await t.request('PATCH', `/api/v1/memory/${kept.id}`, { token: two.token, body: { tags: ['work'] } })).body.data.tags).toEqual(['work']);
  });

  it('over MCP, with the official client: searches, reads its context and writes only within its tags', async () => {
    const client = await mcpClient(work.token);
    const found = await client.callTool({ name: 'search_memory', arguments: { q: 'zebra' } });
    expect(found.isError).toBeFalsy();
    expect(ids((found.structuredContent as { items: Array<{ id: string }> }).items).sort()).toEqual(ids(workEntries).sort());
    const listed = await client.callTool({ name: 'search_memory', arguments: { limit: 200 } });
    expect(JSON.stringify(listed)).not.toMatch(/Secret|personal|Untagged|private/);

    const one = await client.callTool({ name: 'search', arguments: { q: 'zebra' } });
    expect(one.isError).toBeFalsy();
    expect(JSON.stringify(one)).not.toMatch(/Secret|personal|Untagged/);

    const ctx = await client.callTool({ name: 'get_context', arguments: { task: 'zebra' } });
    expect(ctx.isError).toBeFalsy();
    expect(JSON.stringify(ctx)).not.toMatch(/Secret|personal|Untagged|private/);
    expect((ctx.structuredContent as any).memory.entries.every((e: any) => e.tags.includes('work'))).toBe(true);

    const added = await client.callTool({ name: 'add_memory', arguments: { content: 'Added over MCP' } });
    expect(added.isError).toBeFalsy();
    expect((added.structuredContent as any).tags).toEqual(['work']);

    for (const [name, args] of [
      ['update_memory', { id: hidden.id, content: 'taken over' }],
      ['delete_memory', { id: hidden.id }],
    ] as const) {
      const refused = await client.callTool({ name, arguments: args });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused)).toContain('NOT_FOUND');
    }
    const still = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { tag: 'family' } });
    expect(still.body.data.find((e: any) => e.id === hidden.id).content).toBe('Secret family zebra plan');
  });

  it("keys its texts apart from every other writer's: no text of the owner's is taken for one of its own, either way", async () => {
    const mine = await remember(work.token, { content: 'Prefers the window desk' });
    // The owner's note headed by the word of the token's tag: other words, a new entry.
    const owners = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'Work\nPrefers the window desk' } });
    expect(owners.status).toBe(201);
    expect(owners.body.duplicateOf).toBeUndefined();
    expect(owners.body.data.content).toBe('Work\nPrefers the window desk');
    // An entry the token cannot see is neither reported to it nor counted by its write.
    const unseen = await remember(owner.token, { content: 'Work\nPlans the surprise party' });
    const written = await t.request('POST', '/api/v1/memory', { token: work.token, body: { content: 'Plans the surprise party' } });
    expect(written.status).toBe(201);
    expect(written.body.data.tags).toEqual(['work']);
    const kept = (await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: 200 } })).body.data.find((e: any) => e.id === unseen.id);
    expect(kept).toMatchObject({ seenCount: 1, lastSeenAt: null, lastSeenBy: null });
    // Within its tags, the same text is still the same entry.
    const again = await t.request('POST', '/api/v1/memory', { token: work.token, body: { content: 'prefers the  window desk.' } });
    expect(again.status).toBe(200);
    expect(again.body.duplicateOf).toBe(mine.id);
    // A token limited to the same tags in another order shares its keys.
    const reordered = await limitedToken(owner, ['work', 'family']);
    const mixed = await remember(reordered.token, { content: 'Shared desk rota', tags: ['work'] });
    const sameScope = await limitedToken(owner, ['family', 'work']);
    const repeat = await t.request('POST', '/api/v1/memory', { token: sameScope.token, body: { content: 'Shared desk rota', tags: ['work'] } });
    expect(repeat.status).toBe(200);
    expect(repeat.body.duplicateOf).toBe(mixed.id);
  });

  it('clears only the entries it sees', async () => {
    const before = (await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: 200, include: 'history' } })).body.data.length;
    const visible = (await t.request('GET', '/api/v1/memory', { token: work.token, query: { limit: 200, include: 'history' } })).body.data.length;
    const cleared = await t.request('DELETE', '/api/v1/memory', { token: work.token });
    expect(cleared.body).toEqual({ success: true, deleted: visible });
    const after = (await t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: 200, include: 'history' } })).body.data;
    expect(after.length).toBe(before - visible);
    expect(ids(after)).toEqual(expect.arrayContaining([hidden.id, hiddenPinned.id, chainHidden.id]));
  });

  it("reads no count of hidden entries in its search scores: the owner's words it cannot see leave its scores as they are", async () => {
    await remember(work.token, { content: 'Quokka sighting at the office' });
    await remember(work.token, { content: 'Second quokka note for the team' });
    const scores = async () => {
      const res = await t.request('GET', '/api/v1/search', { token: work.token, query: { q: 'quokka', types: 'memory', limit: 10 } });
      expect(res.status).toBe(200);
      return res.body.data.map((hit: { score: number }) => hit.score);
    };
    const before = await scores();
    expect(before).toHaveLength(2);
    // The owner writes the word many times where the token cannot see.
    for (let i = 0; i < 12; i++) await remember(owner.token, { content: `Quokka ${i} in the private diary, a much longer entry than the others are` });
    expect(await scores()).toEqual(before);
    // The owner's own search still weighs the words.
    const own = await t.request('GET', '/api/v1/search', { token: owner.token, query: { q: 'quokka', types: 'memory', limit: 50 } });
    expect(own.body.data).toHaveLength(14);
  });
});

describe('a limited token meets hidden entries only as nothing', () => {
  it('answers a duplicate with what it may see: no id of a hidden entry it replaced, on the plain and superseding paths and over MCP', async () => {
    const owner = await t.createOwner('Duplicate Scope Owner');
    const work = await limitedToken(owner, ['work']);
    const visible = await remember(work.token, { content: 'Visible fact A' });
    const hidden = await remember(owner.token, { content: 'A private fact', tags: ['private'] });
    expect((await t.request('PATCH', `/api/v1/memory/${hidden.id}`, { token: owner.token, body: { supersededBy: visible.id } })).status).toBe(200);

    const again = await t.request('POST', '/api/v1/memory', { token: work.token, body: { content: 'Visible fact A' } });
    expect(again.status).toBe(200);
    expect(again.body.duplicateOf).toBe(visible.id);
    expect(again.body.data.supersedes).toEqual([]);
    expect(again.text).not.toContain(hidden.id);

    // A superseding write whose text the visible entry holds: the same answer.
    const older = await remember(work.token, { content: 'An older work fact' });
    const superseding = await t.request('POST', '/api/v1/memory', { token: work.token, body: { content: 'visible fact a.', supersedes: [older.id] } });
    expect(superseding.status).toBe(200);
    expect(superseding.body.duplicateOf).toBe(visible.id);
    expect(superseding.body.data.supersedes).toEqual([]);
    expect(superseding.text).not.toContain(hidden.id);

    const client = await mcpClient(work.token);
    const added = await client.callTool({ name: 'add_memory', arguments: { content: 'Visible fact A' } });
    expect(added.isError).toBeFalsy();
    expect((added.structuredContent as any).duplicateOf).toBe(visible.id);
    expect((added.structuredContent as any).supersedes).toEqual([]);
    expect(JSON.stringify(added)).not.toContain(hidden.id);

    // The owner sees the link.
    const mine = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'Visible fact A', tags: ['work'] } });
    expect(mine.status).toBe(201);
    const owners = (await t.request('GET', `/api/v1/memory/${visible.id}/history`, { token: owner.token })).body.data;
    expect(owners.find((e: any) => e.id === visible.id).supersedes).toEqual([hidden.id]);
  });

  it('no longer matches a text keyed within its tags once the owner moves the entry out of them: a new entry, and the hidden one untouched', async () => {
    const owner = await t.createOwner('Retagged Owner');
    const work = await limitedToken(owner, ['work']);
    const moved = await remember(work.token, { content: 'Secret plan X' });
    expect((await t.request('PATCH', `/api/v1/memory/${moved.id}`, { token: owner.token, body: { tags: ['private'] } })).status).toBe(200);
    const asOwnerSees = async (id: string) => (await t.request('GET', `/api/v1/memory/${id}/history`, { token: owner.token })).body.data.find((e: any) => e.id === id);
    const before = await asOwnerSees(moved.id);

    const written = await t.request('POST', '/api/v1/memory', { token: work.token, body: { content: 'secret plan x.' } });
    expect(written.status, written.text).toBe(201);
    expect(written.body.data.tags).toEqual(['work']);
    expect(written.text).not.toContain(moved.id);
    // The hidden entry is as the owner left it: not counted, not changed.
    expect(await asOwnerSees(moved.id)).toEqual(before);
    expect(before).toMatchObject({ seenCount: 1, lastSeenAt: null, lastSeenBy: null });
    // Written again, it is the new entry's duplicate.
    const repeat = await t.request('POST', '/api/v1/memory', { token: work.token, body: { content: 'Secret plan X' } });
    expect(repeat.status).toBe(200);
    expect(repeat.body.duplicateOf).toBe(written.body.data.id);

    // A change of another entry to the text of one moved out of its tags: allowed, naming nothing hidden.
    const second = await remember(work.token, { content: 'Secret plan Y' });
    expect((await t.request('PATCH', `/api/v1/memory/${second.id}`, { token: owner.token, body: { tags: ['private'] } })).status).toBe(200);
    const secondBefore = await asOwnerSees(second.id);
    const other = await remember(work.token, { content: 'Another plan' });
    const changed = await t.request('PATCH', `/api/v1/memory/${other.id}`, { token: work.token, body: { content: 'secret plan y' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.text).not.toContain(second.id);
    const after = await t.request('POST', '/api/v1/memory', { token: work.token, body: { content: 'Secret plan Y.' } });
    expect(after.status).toBe(200);
    expect(after.body.duplicateOf).toBe(other.id);
    expect(await asOwnerSees(second.id)).toEqual(secondBefore);

    // A superseding write of a moved entry's text: new too, and the moved entry is not marked.
    const third = await remember(work.token, { content: 'Secret plan Z' });
    expect((await t.request('PATCH', `/api/v1/memory/${third.id}`, { token: owner.token, body: { tags: ['private'] } })).status).toBe(200);
    const thirdBefore = await asOwnerSees(third.id);
    const replaced = await remember(work.token, { content: 'A plan to replace' });
    const superseding = await t.request('POST', '/api/v1/memory', { token: work.token, body: { content: 'secret plan z', supersedes: [replaced.id] } });
    expect(superseding.status, superseding.text).toBe(201);
    expect(superseding.body.data.supersedes).toEqual([replaced.id]);
    expect(superseding.text).not.toContain(third.id);
    expect(await asOwnerSees(third.id)).toEqual(thirdBefore);

    // The owner's own writes are keyed apart, as before: the moved entries are not theirs to match.
    const ownerWrite = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'Secret plan X' } });
    expect(ownerWrite.status).toBe(201);
  });
});
