import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHeld, policyToken } from '../../../test/approvals.helpers.js';
import { startPublicApp } from '../../../test/authorization.helpers.js';
import { expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';

/**
 * The owner's review of memory (docs/decisions/memory.md, "The owner reviews"): a token's
 * `memory.write` policy holding or refusing an agent's writes over REST and MCP, and forgetting
 * everything one agent wrote, exactly that and nothing else.
 */
let t: TestApp;
let base: string;
let owner: Owner;

beforeAll(async () => {
  ({ t, base } = await startPublicApp());
  owner = await t.createOwner('Review Owner');
});
afterAll(async () => t.close());

const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => ignoreFailure(c.close(), 'a client closed already is closed either way')));
});

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'memory-review-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

async function contents(token: string, query: Record<string, string | number | boolean> = {}): Promise<string[]> {
  const res = await t.request('GET', '/api/v1/memory', { token, query: { limit: 200, ...query } });
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((entry: { content: string }) => entry.content);
}

async function remember(token: string, body: Record<string, unknown>): Promise<any> {
  const res = await t.request('POST', '/api/v1/memory', { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

async function entry(id: string, who: Owner = owner): Promise<any> {
  const res = await t.request('GET', `/api/v1/memory/${id}/history`, { token: who.token });
  expect(res.status, res.text).toBe(200);
  return res.body.data.find((e: { id: string }) => e.id === id);
}

describe('memory.write: ask holds an agent write until the owner decides', () => {
  it('over REST: an approved creation exists, a denied one never does, and the owner is shown the text', async () => {
    const agent = await policyToken(t, owner, ['memory'], { 'memory.write': 'ask' });
    const approved = expectHeld(await t.request('POST', '/api/v1/memory', { token: agent.token, body: { content: 'Prefers window seats', kind: 'preference' } }));
    const denied = expectHeld(await t.request('POST', '/api/v1/memory', { token: agent.token, body: { content: 'Owes the agent 100 euros' } }));
    // Held: nothing is written yet.
    expect(await contents(owner.token, { author: agent.id })).toEqual([]);

    const pending = await t.request('GET', '/api/v1/approvals', { token: owner.token, query: { status: 'pending' } });
    const shown = Object.fromEntries(pending.body.data.map((a: { id: string; description: string }) => [a.id, a.description]));
    expect(shown[approved]).toContain('add to memory the text `Prefers window seats`, with kind `preference`');
    expect(shown[denied]).toContain('add to memory the text `Owes the agent 100 euros`');

    expect((await t.request('POST', `/api/v1/approvals/${approved}/approve`, { token: owner.token })).body.data).toMatchObject({ status: 'executed', resultStatus: 201 });
    expect((await t.request('POST', `/api/v1/approvals/${denied}/deny`, { token: owner.token })).body.data.status).toBe('denied');
    const written = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { author: agent.id } });
    expect(written.body.data).toHaveLength(1);
    expect(written.body.data[0]).toMatchObject({ content: 'Prefers window seats', kind: 'preference', author: { channel: 'api', token: { id: agent.id, kind: 'api' } } });
    expect(await contents(owner.token)).not.toContain('Owes the agent 100 euros');
  });

  it('over REST: holds a change and a supersede too, and leaves the entry as it was until approved', async () => {
    const agent = await policyToken(t, owner, ['memory'], { 'memory.write': 'ask' });
    const old = await remember(owner.token, { content: 'Lives in Paris', kind: 'fact' });
    const change = expectHeld(await t.request('PATCH', `/api/v1/memory/${old.id}`, { token: agent.token, body: { content: 'Lives in Lyon' } }));
    expect((await entry(old.id)).content).toBe('Lives in Paris');
    const newer = await remember(owner.token, { content: 'Moved to Lyon in 2026', kind: 'fact' });
    const supersede = expectHeld(await t.request('PATCH', `/api/v1/memory/${old.id}`, { token: agent.token, body: { supersededBy: newer.id } }));
    const pending = (await t.request('GET', `/api/v1/approvals/${supersede}`, { token: owner.token })).body.data;
    expect(pending.description).toContain(`mark the memory entry ${old.id} as replaced by the entry ${newer.id}`);
    expect((await entry(old.id)).supersededBy).toBeNull();

    expect((await t.request('POST', `/api/v1/approvals/${change}/deny`, { token: owner.token })).status).toBe(200);
    expect((await t.request('POST', `/api/v1/approvals/${supersede}/approve`, { token: owner.token })).body.data.status).toBe('executed');
    const after = await entry(old.id);
    expect(after).toMatchObject({ content: 'Lives in Paris', supersededBy: newer.id });
  });

  it('over MCP (the SDK client): a held add_memory is a normal result; approved it exists, denied it does not', async () => {
    const agent = await policyToken(t, owner, ['read', 'memory'], { 'memory.write': 'ask' });
    const client = await mcpClient(agent.token);
    const first = await client.callTool({ name: 'add_memory', arguments: { content: 'Birthday on 3 May', kind: 'event' } });
    const second = await client.callTool({ name: 'add_memory', arguments: { content: 'Password is hunter2' } });
    for (const held of [first, second]) {
      expect(held.isError).toBeFalsy();
      expect(held.structuredContent).toMatchObject({ status: 'pending', approvalId: expect.any(String) });
    }
    const approve = (first.structuredContent as { approvalId: string }).approvalId;
    const deny = (second.structuredContent as { approvalId: string }).approvalId;
    expect(await contents(owner.token, { author: agent.id })).toEqual([]);

    expect((await t.request('POST', `/api/v1/approvals/${approve}/approve`, { token: owner.token })).body.data.status).toBe('executed');
    expect((await t.request('POST', `/api/v1/approvals/${deny}/deny`, { token: owner.token })).body.data.status).toBe('denied');
    const written = await t.request('GET', '/api/v1/memory', { token: owner.token, query: { author: agent.id } });
    expect(written.body.data.map((e: any) => [e.content, e.kind, e.author.channel])).toEqual([['Birthday on 3 May', 'event', 'mcp']]);

    // The agent learns the outcome through check_approval, the tool a held call points to.
    const checked = await client.callTool({ name: 'check_approval', arguments: { id: approve } });
    expect(checked.structuredContent).toMatchObject({ approvalId: approve, status: 'executed', result: { content: 'Birthday on 3 May' } });
    const refused = await client.callTool({ name: 'check_approval', arguments: { id: deny } });
    expect(refused.structuredContent).toMatchObject({ approvalId: deny, status: 'denied' });
  });

  it("never holds the owner's own writes (master token or console session)", async () => {
    expect((await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'The owner writes at once' } })).status).toBe(201);
    const master = (await t.container.tokens.authenticate(owner.token))!.tokenId;
    expectError(await t.request('PUT', `/api/v1/tokens/${master}/policy`, { token: owner.token, body: { rules: { 'memory.write': 'ask' } } }), 400, 'VALIDATION_ERROR');
  });
});

describe('memory.write: deny refuses', () => {
  it('over REST and MCP with POLICY_DENIED, writing nothing; reads and deletes are other classes', async () => {
    const agent = await policyToken(t, owner, ['read', 'memory'], { 'memory.write': 'deny' });
    const kept = await remember(owner.token, { content: 'A fact the agent may read' });
    const refused = expectError(await t.request('POST', '/api/v1/memory', { token: agent.token, body: { content: 'planted' } }), 403, 'POLICY_DENIED');
    expect(refused.details).toEqual({ actionClass: 'memory.write' });
    expectError(await t.request('PATCH', `/api/v1/memory/${kept.id}`, { token: agent.token, body: { content: 'rewritten' } }), 403, 'POLICY_DENIED');

    const client = await mcpClient(agent.token);
    const added = await client.callTool({ name: 'add_memory', arguments: { content: 'planted over MCP' } });
    expect(added.isError).toBe(true);
    expect((added.content as Array<{ text: string }>)[0]!.text).toMatch(/^POLICY_DENIED: .*memory\.write/);
    const updated = await client.callTool({ name: 'update_memory', arguments: { id: kept.id, content: 'rewritten over MCP' } });
    expect(updated.isError).toBe(true);

    expect(await contents(owner.token, { author: agent.id })).toEqual([]);
    expect((await entry(kept.id)).content).toBe('A fact the agent may read');
    // Reading is no write; deleting is memory.delete, a class of its own the policy leaves allowed.
    expect(await contents(agent.token)).toContain('A fact the agent may read');
    expect((await t.request('DELETE', `/api/v1/memory/${kept.id}`, { token: agent.token })).status).toBe(200);
  });
});

describe('forgetting everything one agent wrote', () => {
  it('counts first, refuses a stale count, then deletes exactly that agent\'s entries, mends chains, and audits the count', async () => {
    const me = await t.createOwner('Forgetting Owner');
    const stranger = await t.createOwner('Forgetting Stranger');
    const forgotten = await policyToken(t, me, ['read', 'memory']);
    const other = await policyToken(t, me, ['memory']);

    // The owner's fact, replaced by the forgotten agent: current again once it is forgotten.
    const ownerFact = await remember(me.token, { content: 'Works at Acme' });
    const agentFix = await remember(forgotten.token, { content: 'Works at Initech', supersedes: [ownerFact.id] });
    // A chain owner → agent → other agent: spliced, the owner's entry replaced by the other's.
    const first = await remember(me.token, { content: 'Car is red' });
    const middle = await remember(forgotten.token, { content: 'Car is blue', supersedes: [first.id] });
    const last = await remember(other.token, { content: 'Car is green', supersedes: [middle.id] });
    // Two of the agent's own in a chain, over MCP too, and plain ones.
    const client = await mcpClient(forgotten.token);
    const overMcp = (await client.callTool({ name: 'add_memory', arguments: { content: 'Said over MCP', tags: ['work'], pinned: true } })).structuredContent as { id: string };
    await remember(forgotten.token, { content: 'Replaces the MCP one', supersedes: [overMcp.id] });
    await remember(forgotten.token, { content: 'Plain agent note' });
    const kept = [
      await remember(me.token, { content: 'The owner’s own note' }),
      await remember(other.token, { content: 'The other agent’s note' }),
    ];
    const strangers = await remember(stranger.token, { content: 'Another owner’s note' });

    const forget = (body: Record<string, unknown>, token = me.token) => t.request('POST', '/api/v1/memory/forget', { token, body });
    const dry = await forget({ author: forgotten.id, dryRun: true });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.data).toEqual({ author: forgotten.id, dryRun: true, count: 5, deleted: 0, restored: 1 });
    expect(await contents(me.token, { author: forgotten.id, include: 'history' })).toHaveLength(5);

    // The agent wrote once more since the count was shown: nothing is deleted.
    await remember(forgotten.token, { content: 'Written after the count' });
    const stale = expectError(await forget({ author: forgotten.id, expectedCount: 5 }), 409, 'CONFLICT');
    expect(stale.details).toEqual({ count: 6, expectedCount: 5 });
    expect(await contents(me.token, { author: forgotten.id, include: 'history' })).toHaveLength(6);

    const done = await forget({ author: forgotten.id, expectedCount: 6 });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data).toEqual({ author: forgotten.id, dryRun: false, count: 6, deleted: 6, restored: 1 });
    expect(await contents(me.token, { author: forgotten.id, include: 'history' })).toEqual([]);
    // Everything else stays, on both sides of the chains.
    expect((await contents(me.token, { include: 'history' })).sort()).toEqual(['Car is green', 'Car is red', 'The other agent’s note', 'The owner’s own note', 'Works at Acme'].sort());
    expect(await contents(stranger.token)).toEqual(['Another owner’s note']);
    expect((await entry(kept[0].id, me)).content).toBe('The owner’s own note');
    expect((await entry(kept[1].id, me)).content).toBe('The other agent’s note');
    expect((await t.request('GET', `/api/v1/memory/${strangers.id}/history`, { token: stranger.token })).status).toBe(200);

    expect(await entry(ownerFact.id, me)).toMatchObject({ supersededBy: null, supersededAt: null });
    expect(await contents(me.token)).toContain('Works at Acme');
    expect((await t.request('GET', `/api/v1/memory/${agentFix.id}/history`, { token: me.token })).status).toBe(404);
    expect(await entry(first.id, me)).toMatchObject({ supersededBy: last.id, supersededAt: expect.any(String) });
    expect(await entry(last.id, me)).toMatchObject({ supersedes: [first.id] });
    const chain = await t.request('GET', `/api/v1/memory/${first.id}/history`, { token: me.token });
    expect(chain.body.data.map((e: { id: string }) => e.id)).toEqual([first.id, last.id]);

    const audit = await t.request('GET', '/api/v1/audit/log', { token: me.token, query: { action: 'memory.forget_author', limit: 10 } });
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ outcome: 'success', targetType: 'token', targetId: forgotten.id, details: { deleted: 6, restored: 1 } });

    // Once forgotten, nothing is left: a second time deletes none.
    expect((await forget({ author: forgotten.id })).body.data).toMatchObject({ count: 0, deleted: 0 });
  });

  it('gives an entry made current again its text back: the same text written again is its duplicate, unless another entry took it meanwhile', async () => {
    const me = await t.createOwner('Forgetting Keys');
    const agent = await policyToken(t, me, ['memory']);
    const restored = await remember(me.token, { content: 'Lives in Lyon' });
    await remember(agent.token, { content: 'Lives in Paris', supersedes: [restored.id] });
    // Replaced, the entry's text is free: the owner writes it again as a new entry, which the agent replaces too.
    const taken = await remember(me.token, { content: 'Walks to work' });
    await remember(agent.token, { content: 'Cycles to work', supersedes: [taken.id] });
    const meanwhile = await remember(me.token, { content: 'walks to work.' });

    const done = await t.request('POST', '/api/v1/memory/forget', { token: me.token, body: { author: agent.id } });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data).toMatchObject({ deleted: 2, restored: 2 });

    const again = await t.request('POST', '/api/v1/memory', { token: me.token, body: { content: 'lives in lyon.' } });
    expect(again.status, again.text).toBe(200);
    expect(again.body.duplicateOf).toBe(restored.id);
    // The text another current entry held by then stays with it; the restored one is kept beside it.
    const held = await t.request('POST', '/api/v1/memory', { token: me.token, body: { content: 'Walks to work' } });
    expect(held.status, held.text).toBe(200);
    expect(held.body.duplicateOf).toBe(meanwhile.id);
    expect(await contents(me.token)).toEqual(expect.arrayContaining(['Lives in Lyon', 'Walks to work', 'walks to work.']));
  });

  it("reaches only the caller's entries: another owner's token names none of them", async () => {
    const me = await t.createOwner('Forgetting Isolation');
    const stranger = await t.createOwner('Forgetting Isolation Stranger');
    const strangerAgent = await policyToken(t, stranger, ['memory']);
    await remember(strangerAgent.token, { content: 'The stranger agent’s note' });
    const res = await t.request('POST', '/api/v1/memory/forget', { token: me.token, body: { author: strangerAgent.id } });
    expect(res.body.data).toMatchObject({ count: 0, deleted: 0 });
    expect(await contents(stranger.token)).toEqual(['The stranger agent’s note']);
  });

  it('is the owner\'s alone, and refuses a body it does not understand', async () => {
    const me = await t.createOwner('Forgetting Rights');
    const agent = await policyToken(t, me, ['memory']);
    await remember(agent.token, { content: 'An agent cannot forget in bulk' });
    expectError(await t.request('POST', '/api/v1/memory/forget', { token: agent.token, body: { author: agent.id } }), 403, 'FORBIDDEN');
    expectError(await t.request('POST', '/api/v1/memory/forget', { token: me.token, body: {} }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', '/api/v1/memory/forget', { token: me.token, body: { author: agent.id, channel: 'api' } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', '/api/v1/memory/forget', { token: me.token, body: { author: agent.id, expectedCount: -1 } }), 400, 'VALIDATION_ERROR');
    expect(await contents(me.token)).toEqual(['An agent cannot forget in bulk']);
  });
});

describe('the authors of memory', () => {
  it('lists each token that wrote, with its count and name as it wrote, newest writer first, the owner\'s alone', async () => {
    const me = await t.createOwner('Authors Owner');
    const stranger = await t.createOwner('Authors Stranger');
    const made = await t.request('POST', '/api/v1/tokens', { token: me.token, body: { name: 'Travel agent', scopes: ['memory'] } });
    const agent = { token: made.body.data.token as string, id: made.body.data.id as string };
    await remember(agent.token, { content: 'Flies from Lyon' });
    await remember(agent.token, { content: 'Prefers aisle seats' });
    await remember(me.token, { content: 'The owner’s note' });
    await remember(stranger.token, { content: 'Not listed for me' });
    // Renamed and then deleted: its entries still name it as it was.
    await t.request('PATCH', `/api/v1/tokens/${agent.id}`, { token: me.token, body: { name: 'Renamed' } });
    await t.request('DELETE', `/api/v1/tokens/${agent.id}`, { token: me.token });

    const res = await t.request('GET', '/api/v1/memory/authors', { token: me.token });
    expect(res.status, res.text).toBe(200);
    const master = (await t.container.tokens.authenticate(me.token))!.tokenId;
    expect(res.body.data).toEqual([
      { token: { id: master, name: expect.any(String), kind: 'master' }, agent: null, count: 1, lastWrittenAt: expect.any(String) },
      { token: { id: agent.id, name: 'Travel agent', kind: 'api' }, agent: null, count: 2, lastWrittenAt: expect.any(String) },
    ]);
    // The owner's alone: an agent with the memory scope does not learn who else writes.
    expectError(await t.request('GET', '/api/v1/memory/authors', { token: await t.tokenWithScopes(me, ['memory']) }), 403, 'FORBIDDEN');
  });
});
