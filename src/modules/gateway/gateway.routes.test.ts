import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';

// Value.Check knows no formats until told; the server's Ajv checks date-time strictly.
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v));

let t: TestApp;
let owner: Owner;
let other: Owner;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Ada Owner');
  other = await t.createOwner('Someone Else');
});

afterAll(async () => t.close());

const context = (token: string) => t.request('GET', '/api/v1/gateway/context', { token });

describe('GET /api/v1/gateway/context', () => {
  it('is documented from the sections themselves: each its own schema, in order; endpoints and token always present', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    // Shared shapes are named components: follow a `$ref` wherever one stands.
    const at = (schema: any): any => (schema?.$ref ? at(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]) : schema);
    const data = at(at(doc.paths['/api/v1/gateway/context'].get.responses['200'].content['application/json'].schema).properties.data);
    // The sections in their order, then the budget report (present only when a budget is asked for).
    expect(Object.keys(data.properties)).toEqual([...t.container.gateway.sectionNames(), 'budget']);
    expect(data.required).toEqual(['endpoints', 'token']);
    // The memory section is described by the memory module, with its entries' own schema.
    expect(at(at(at(data.properties.memory).properties.entries).items).properties).toHaveProperty('content');
  });

  it('needs a token', async () => {
    expectError(await t.request('GET', '/api/v1/gateway/context'), 401, 'UNAUTHORIZED');
  });

  it('needs the read scope', async () => {
    const body = expectError(await context(await t.tokenWithScopes(owner, ['memory', 'identity'])), 403, 'INSUFFICIENT_SCOPE');
    expect(body.message).toContain('read');
  });

  it('answers the user without the email, the token and its endpoints to a read token', async () => {
    const token = await t.tokenWithScopes(owner, ['read']);
    const res = await context(token);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.user).toEqual({ id: owner.id, name: 'Ada Owner' });
    expect(d.token).toEqual({ id: expect.stringMatching(/^tok_/), kind: 'api', scopes: ['read'] });
    const caps = (await t.request('GET', '/api/v1/tokens/me/capabilities', { token })).body.data;
    expect(d.token.id).toBe(caps.tokenId);
    expect(d.endpoints).toEqual(caps.endpoints);
    expect(d.endpoints).toContain('GET /api/v1/gateway/context');
  });

  it('includes the email only when the token holds identity', async () => {
    const res = await context(await t.tokenWithScopes(owner, ['read', 'identity']));
    expect(res.status).toBe(200);
    expect(res.body.data.user).toEqual({ id: owner.id, name: 'Ada Owner', email: owner.email });
    expect(res.body.data.endpoints).toContain('GET /api/v1/users/me');

    const masterRes = await context(owner.token);
    expect([...Value.Errors(t.container.gateway.contextSchema, masterRes.body)]).toEqual([]);
    const master = masterRes.body.data;
    expect(master.user.email).toBe(owner.email);
    expect(master.token).toEqual({ id: expect.any(String), kind: 'master', scopes: SCOPE_NAMES });
  });

  it("answers the calling token's owner, never another one's", async () => {
    const mine = (await context(other.token)).body.data;
    expect(mine.user).toEqual({ id: other.id, name: 'Someone Else', email: other.email });
  });

  it('works with ?token=', async () => {
    const token = await t.tokenWithScopes(owner, ['read']);
    const res = await t.request('GET', '/api/v1/gateway/context', { query: { token } });
    expect(res.status).toBe(200);
    expect(res.body.data.user.id).toBe(owner.id);
  });
});

describe('the owner-data sections', () => {
  let ownerC: Owner;
  let full: string;

  beforeAll(async () => {
    ownerC = await t.createOwner('Carla');
    full = ownerC.token;
  });

  const data = async (token: string) => {
    const res = await context(token);
    expect(res.status).toBe(200);
    expect(Value.Check(t.container.gateway.contextSchema, res.body)).toBe(true);
    return res.body.data;
  };

  it('shows each section only to the scopes that may read it', async () => {
    const all = await data(full);
    for (const name of ['user', 'token', 'endpoints', 'persona', 'identity', 'preferences', 'memory', 'skills', 'knowledge']) {
      expect(all).toHaveProperty(name);
    }
    const readOnly = await data(await t.tokenWithScopes(ownerC, ['read']));
    expect(Object.keys(readOnly).sort()).toEqual(['endpoints', 'identity', 'token', 'user']);
    expect(readOnly.identity).not.toHaveProperty('professional');
    const some = await data(await t.tokenWithScopes(ownerC, ['read', 'memory', 'personas']));
    expect(Object.keys(some).sort()).toEqual(['endpoints', 'identity', 'memory', 'persona', 'token', 'user']);
  });

  it('reflects every change on the very next call, cascades included', async () => {
    const before = await data(full);
    expect(before.persona).toBeNull();
    expect(before.memory).toEqual({ entries: [], total: 0, truncated: false });

    const memory = await t.request('POST', '/api/v1/memory', { token: full, body: { content: 'Likes green tea' } });
    expect((await data(full)).memory.entries.map((e: { id: string }) => e.id)).toEqual([memory.body.data.id]);

    const persona = await t.request('POST', '/api/v1/personas', { token: full, body: { name: 'Guide', soul_content: 'Be calm.' } });
    await t.request('POST', `/api/v1/personas/${persona.body.data.id}/activate`, { token: full });
    const doc = await t.request('POST', '/api/v1/brain/knowledge-base', { token: full, body: { title: 'Handbook', content: 'Rules.' } });
    await t.request('POST', `/api/v1/personas/${persona.body.data.id}/documents`, { token: full, body: { documentId: doc.body.data.id } });
    let now = await data(full);
    expect(now.persona).toMatchObject({ name: 'Guide', soul_content: 'Be calm.', documents: [{ id: doc.body.data.id, title: 'Handbook' }] });
    expect(now.knowledge.documentCount).toBe(1);

    // Deleting the document removes its attachment by cascade, through no statement on the link table.
    await t.request('DELETE', `/api/v1/brain/knowledge-base/${doc.body.data.id}`, { token: full });
    now = await data(full);
    expect(now.persona.documents).toEqual([]);
    expect(now.knowledge.documentCount).toBe(0);

    const skill = await t.request('POST', '/api/v1/skills', { token: full, body: { name: 'summarise', description: 'Summaries' } });
    await t.request('POST', `/api/v1/skills/${skill.body.data.id}/activate`, { token: full });
    expect((await data(full)).skills.map((s: { slug: string }) => s.slug)).toEqual(['summarise']);

    await t.request('PUT', '/api/v1/identity', { token: full, body: { bio: 'Gardener' } });
    await t.request('PUT', '/api/v1/preferences', { token: full, body: { tone: 'warm' } });
    now = await data(full);
    expect(now.identity.bio).toBe('Gardener');
    expect(now.preferences).toEqual({ tone: 'warm' });

    await t.request('DELETE', `/api/v1/personas/${persona.body.data.id}`, { token: full });
    await t.request('DELETE', '/api/v1/memory', { token: full });
    now = await data(full);
    expect(now.persona).toBeNull();
    expect(now.memory.total).toBe(0);
  });

  it('drops a memory entry from the context the moment its validity ends, kept context or not', async () => {
    const someone = await t.createOwner();
    const until = new Date(Date.now() + 1_200).toISOString();
    const lasting = await t.request('POST', '/api/v1/memory', { token: someone.token, body: { content: 'Lives in Bristol.' } });
    const expiring = await t.request('POST', '/api/v1/memory', { token: someone.token, body: { content: 'Is in Lisbon this week.', validUntil: until } });
    expect([lasting.status, expiring.status]).toEqual([201, 201]);
    const ids = async () => ((await context(someone.token)).body.data.memory.entries as Array<{ id: string }>).map((entry) => entry.id);
    // Asked twice, so that the second answer is the kept one.
    expect(await ids()).toEqual([expiring.body.data.id, lasting.body.data.id]);
    expect(await ids()).toEqual([expiring.body.data.id, lasting.body.data.id]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(until) - Date.now()) + 20));
    expect(await ids()).toEqual([lasting.body.data.id]);
    const after = await context(someone.token);
    expect(after.body.data.memory.total).toBe(1);
  });

  it('rebuilds a kept budgeted context when a memory entry it read but cut expires: what the other sections get depends on it', async () => {
    const someone = await t.createOwner();
    const token = await t.tokenWithScopes(someone, ['read', 'memory', 'knowledge']);
    for (let i = 0; i < 20; i++) {
      const made = await t.request('POST', '/api/v1/brain/knowledge-base', { token: someone.token, body: { title: `Document ${i} with a title long enough to take some room`, content: 'Body.' } });
      expect(made.status).toBe(200);
    }
    const until = new Date(Date.now() + 1_500).toISOString();
    expect((await t.request('POST', '/api/v1/memory', { token: someone.token, body: { content: 'Long '.repeat(600), validUntil: until } })).status).toBe(201);
    expect((await t.request('POST', '/api/v1/memory', { token: someone.token, body: { content: 'Short one.' } })).status).toBe(201);
    // The budget get_context asks for over MCP is such a budget too (maxTokens 4000, endpoints omitted).
    const budgeted = () => t.request('GET', '/api/v1/gateway/context?maxTokens=1000', { token });
    const before = await budgeted();
    expect((await budgeted()).text).toBe(before.text);
    expect(before.body.data.memory.entries).toHaveLength(1);
    expect(before.body.data.budget.trimmed).toContain('memory');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(until) - Date.now()) + 30));
    const after = await budgeted();
    // The same context built afresh: any write to memory_entries (here another owner's) empties the kept ones.
    expect((await t.request('POST', '/api/v1/memory', { token: other.token, body: { content: `Unrelated ${Date.now()}.` } })).status).toBe(201);
    const fresh = await budgeted();
    expect(fresh.body.data.budget.trimmed).not.toContain('memory');
    expect(fresh.body.data.knowledge.recent.length).toBeGreaterThan(before.body.data.knowledge.recent.length);
    expect(after.text).toBe(fresh.text);
  });

  it('follows a change of the token itself: narrowed scopes hide sections at once', async () => {
    const created = await t.request('POST', '/api/v1/tokens', { token: full, body: { name: 'agent', scopes: ['read', 'memory'] } });
    const agent = created.body.data.token;
    expect(await data(agent)).toHaveProperty('memory');
    await t.request('PUT', `/api/v1/tokens/${created.body.data.id}`, { token: full, body: { scopes: ['read'] } });
    expect(await data(agent)).not.toHaveProperty('memory');
  });

  it('never shows one owner the context of another', async () => {
    await t.request('POST', '/api/v1/memory', { token: other.token, body: { content: 'Other owner secret note' } });
    const mine = await data(full);
    expect(JSON.stringify(mine)).not.toContain('Other owner secret note');
  });
});
