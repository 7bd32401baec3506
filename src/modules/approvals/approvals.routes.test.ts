import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAndRead, expectHeld, outsiders, policyToken, type Rules } from '../../../test/approvals.helpers.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { APPROVAL_REPLAY_HEADER, type ActionClass } from '../../http/access.js';
import { ACTION_CLASS_NAMES } from '../permissions/permissions.actions.js';
import type { AccountEvent } from '../events/events.schemas.js';
import { EXEC_HARD_LIMIT_MS } from '../afp/afp.service.js';
import { createApprovalsRepo } from './approvals.repo.js';
import { replayLeaseMs } from './approvals.service.js';

let t: TestApp;
let owner: Owner;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Approvals Owner');
});
afterAll(async () => t.close());

/** A new API token of `who` with `scopes`, its id, and a policy asking (or denying) `rules`. */
const agent = (scopes: string[], rules: Rules = {}, who: Owner = owner) => policyToken(t, who, scopes, rules);

async function remember(content: string): Promise<string> {
  const res = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content } });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

const held = expectHeld;

describe('policies', () => {
  it('default to allow for every class, and only the owner reads or changes them', async () => {
    const token = await t.tokenWithScopes(owner, ['memory']);
    const id = (await t.container.tokens.authenticate(token))!.tokenId;
    const res = await t.request('GET', `/api/v1/tokens/${id}/policy`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data.rules).sort()).toEqual([...ACTION_CLASS_NAMES].sort());
    expect(Object.values(res.body.data.rules).every((rule) => rule === 'allow')).toBe(true);
    expect(res.body.data.updatedAt).toBeNull();
    // What a memory token can meet: its own classes, not mail's, the devices' or the vault's.
    expect(res.body.data.reachable).toEqual(['memory.write', 'memory.delete']);

    // The token itself may neither read nor loosen its own policy.
    expectError(await t.request('GET', `/api/v1/tokens/${id}/policy`, { token }), 403, 'FORBIDDEN');
    expectError(await t.request('PUT', `/api/v1/tokens/${id}/policy`, { token, body: { rules: {} } }), 403, 'FORBIDDEN');

    const put = await t.request('PUT', `/api/v1/tokens/${id}/policy`, { token: owner.token, body: { rules: { 'memory.delete': 'ask', 'vault.write': 'deny' } } });
    expect(put.status).toBe(200);
    expect(put.body.data.rules['memory.delete']).toBe('ask');
    expect(put.body.data.rules['vault.write']).toBe('deny');
    expect(put.body.data.rules['devices.exec']).toBe('allow');
    // PUT replaces the whole policy.
    const replaced = await t.request('PUT', `/api/v1/tokens/${id}/policy`, { token: owner.token, body: { rules: { 'mail.send': 'ask' } } });
    expect(replaced.body.data.rules['memory.delete']).toBe('allow');
    expect(replaced.body.data.reachable).toEqual(['memory.write', 'memory.delete']);
    // Every scope: every class a route declares.
    const wide = await t.tokenWithScopes(owner, ['read', 'memory', 'knowledge', 'services:write', 'devices']);
    const wideId = (await t.container.tokens.authenticate(wide))!.tokenId;
    const reach = (await t.request('GET', `/api/v1/tokens/${wideId}/policy`, { token: owner.token })).body.data.reachable as string[];
    expect(reach).toEqual(expect.arrayContaining(['memory.write', 'knowledge.write', 'knowledge.delete', 'services.write', 'mail.send', 'devices.exec']));
    expect(reach).not.toContain('vault.write');
    expect((await t.request('GET', `/api/v1/tokens/${id}/policy`, { token: owner.token })).body.data.rules['mail.send']).toBe('ask');
  });

  it("refuses unknown classes and rules, the owner's own tokens, and another owner's tokens", async () => {
    const { id } = await agent(['memory']);
    expectError(await t.request('PUT', `/api/v1/tokens/${id}/policy`, { token: owner.token, body: { rules: { 'memory.nuke': 'ask' } } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PUT', `/api/v1/tokens/${id}/policy`, { token: owner.token, body: { rules: { 'memory.delete': 'maybe' } } }), 400, 'VALIDATION_ERROR');
    const masterId = (await t.container.tokens.authenticate(owner.token))!.tokenId;
    expectError(await t.request('PUT', `/api/v1/tokens/${masterId}/policy`, { token: owner.token, body: { rules: {} } }), 400, 'VALIDATION_ERROR');
    const other = await t.createOwner('Policy Stranger');
    expectError(await t.request('GET', `/api/v1/tokens/${id}/policy`, { token: other.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PUT', `/api/v1/tokens/${id}/policy`, { token: other.token, body: { rules: {} } }), 404, 'NOT_FOUND');
  });
});

describe('deny', () => {
  it('answers 403 POLICY_DENIED naming the class, and nothing runs', async () => {
    const { token } = await agent(['memory'], { 'memory.delete': 'deny' });
    const id = await remember('kept because denied');
    const res = expectError(await t.request('DELETE', `/api/v1/memory/${id}`, { token }), 403, 'POLICY_DENIED');
    expect(res.message).toContain('memory.delete');
    expect(res.details).toEqual({ actionClass: 'memory.delete' });
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data.map((m: any) => m.id)).toContain(id);
    // Other actions of the same scope are not in the class.
    expect((await t.request('POST', '/api/v1/memory', { token, body: { content: 'adding is fine' } })).status).toBe(201);
  });

  it("never applies to the owner's own tokens", async () => {
    const id = await remember('owner deletes at once');
    expect((await t.request('DELETE', `/api/v1/memory/${id}`, { token: owner.token })).status).toBe(200);
    const session = await t.login(owner);
    const other = await remember('session deletes at once');
    expect((await t.request('DELETE', `/api/v1/memory/${other}`, { token: session })).status).toBe(200);
  });
});

describe('ask, then approve', () => {
  it('holds the request, runs it once on approval as the token, and shows the answer to that token alone', async () => {
    const seen: AccountEvent[] = [];
    const stop = t.container.events.subscribe(owner.id, (event) => seen.push(event));
    const requester = await agent(['memory'], { 'memory.delete': 'ask' });
    const bystander = await agent(['memory']);
    const id = await remember('delete me after approval');

    const approvalId = held(await t.request('DELETE', `/api/v1/memory/${id}`, { token: requester.token }));
    // Not run yet.
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data.map((m: any) => m.id)).toContain(id);

    const pending = await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: owner.token });
    expect(pending.body.data).toMatchObject({ status: 'pending', actionClass: 'memory.delete', tokenId: requester.id, method: 'DELETE', path: `/api/v1/memory/${id}`, result: null });
    expect(pending.body.data.description).toBe(`test memory wants to delete the memory entry ${id}`);
    const listed = await t.request('GET', '/api/v1/approvals', { token: owner.token, query: { status: 'pending' } });
    expect(listed.body.data.map((a: any) => a.id)).toContain(approvalId);

    const approved = await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: owner.token });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.data).toMatchObject({ status: 'executed', resultStatus: 200, result: null });
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data.map((m: any) => m.id)).not.toContain(id);

    // The requesting token sees what its request answered; the owner sees how it ended; no other token sees it.
    const mine = await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: requester.token });
    expect(mine.body.data.status).toBe('executed');
    expect(mine.body.data.result).toEqual({ status: 200, body: { data: expect.objectContaining({ id }) } });
    expect((await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: owner.token })).body.data.result).toBeNull();
    expectError(await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: bystander.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/api/v1/approvals', { token: requester.token }), 403, 'FORBIDDEN');
    const stranger = await t.createOwner('Approval Stranger');
    expectError(await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: stranger.token }), 404, 'NOT_FOUND');

    // Decided once.
    expectError(await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: owner.token }), 409, 'CONFLICT');
    expectError(await t.request('POST', `/api/v1/approvals/${approvalId}/deny`, { token: owner.token }), 409, 'CONFLICT');
    stop();
    expect(seen.filter((e) => e.type.startsWith('approval.')).map((e) => [e.type, (e.data as any).approvalId, (e.data as any).decision])).toEqual([
      ['approval.requested', approvalId, undefined],
      ['approval.decided', approvalId, 'approved'],
    ]);

    // The cycle is audited: requested (by the token), approved (by the owner), executed (with its status).
    const audit = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'approval.*', limit: 50 } });
    const mineAudit = audit.body.data.filter((e: any) => e.targetId === approvalId);
    expect(mineAudit.map((e: any) => e.action).sort()).toEqual(['approval.approved', 'approval.executed', 'approval.requested']);
    expect(mineAudit.find((e: any) => e.action === 'approval.executed').details).toMatchObject({ resultStatus: 200 });
  });

  it('knowledge.delete and vault.write: nothing before approval, once after it, the answer for the requesting token alone', async () => {
    const requester = await agent(['knowledge', 'vault'], { 'knowledge.delete': 'ask', 'vault.write': 'ask' });
    const parties = { owner, requester: requester.token, others: await outsiders(t, owner, ['knowledge', 'vault']) };

    const doc = await t.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: 'Removed on approval', content: 'soon gone' } });
    expect(doc.status, doc.text).toBe(200);
    const docId = doc.body.data.id;
    const dropDoc = held(await t.request('DELETE', `/api/v1/brain/knowledge-base/${docId}`, { token: requester.token }));
    expect((await t.request('GET', `/api/v1/brain/knowledge-base/${docId}`, { token: owner.token })).status).toBe(200);
    expect(await approveAndRead(t, dropDoc, parties)).toEqual({ data: { id: docId, deleted: true } });
    expectError(await t.request('GET', `/api/v1/brain/knowledge-base/${docId}`, { token: owner.token }), 404, 'NOT_FOUND');

    const vaultNamed = async (name: string) => (await t.request('GET', '/api/v1/vault/tokens', { token: owner.token })).body.data.filter((v: any) => v.name === name);
    const secret = 'sk-approved-secret-1234567890';
    const store = held(await t.request('POST', '/api/v1/vault/tokens', { token: requester.token, body: { name: 'approved-key', service: 'example', token: secret, websiteUrl: 'https://example.org' } }));
    expect(await vaultNamed('approved-key')).toEqual([]);
    const stored = await approveAndRead(t, store, parties, 201);
    expect(stored.data).toMatchObject({ name: 'approved-key', service: 'example' });
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect((await vaultNamed('approved-key')).map((v: any) => v.id)).toEqual([stored.data.id]);

    const drop = held(await t.request('DELETE', `/api/v1/vault/tokens/${stored.data.id}`, { token: requester.token }));
    expect(await vaultNamed('approved-key')).toHaveLength(1);
    expect((await approveAndRead(t, drop, parties)).data).toMatchObject({ id: stored.data.id });
    expect(await vaultNamed('approved-key')).toEqual([]);
  });

  it('each class under ask answers 202 and runs once on approval, answering what the route answers', async () => {
    const everything = ['devices', 'services:write', 'services:read', 'memory', 'knowledge', 'vault'];
    const asking = await agent(everything, Object.fromEntries(ACTION_CLASS_NAMES.map((c) => [c, 'ask'])));
    const allowed = await agent(everything);
    const doc = await t.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: 'Doomed', content: 'to be deleted' } });
    expect(doc.status, doc.text).toBe(200);
    const vaultToken = await t.request('POST', '/api/v1/vault/tokens', { token: owner.token, body: { name: 'old', service: 'example', token: 'sk-old-1234567890', websiteUrl: 'https://example.org' } });
    expect(vaultToken.status, vaultToken.text).toBe(201);
    const mem = await remember('cleared after approval');

    type Case = { actionClass: ActionClass; method: 'POST' | 'DELETE'; url: string; body?: unknown; effect?: { status: number } };
    const cases: Case[] = [
      { actionClass: 'devices.exec', method: 'POST', url: '/api/v1/afp/dev_none/exec', body: { cmd: 'rm -rf build' } },
      { actionClass: 'devices.write', method: 'POST', url: '/api/v1/afp/dev_none/write', body: { path: 'a.txt', content: 'hi' } },
      { actionClass: 'devices.write', method: 'POST', url: '/api/v1/afp/dev_none/mkdir', body: { path: 'dir' } },
      { actionClass: 'devices.delete', method: 'DELETE', url: '/api/v1/afp/dev_none/rm', body: { path: 'a.txt' } },
      { actionClass: 'mail.send', method: 'POST', url: '/api/v1/services/google/mail/send', body: { to: 'ann@example.org', subject: 'Hi', body: 'secret text' } },
      { actionClass: 'mail.trash', method: 'DELETE', url: '/api/v1/services/google/mail/messages/m1' },
      { actionClass: 'files.upload', method: 'POST', url: '/api/v1/services/google/storage/upload', body: { name: 'a.txt', content: 'file content' } },
      { actionClass: 'files.delete', method: 'DELETE', url: '/api/v1/services/google/storage/files/f1' },
      { actionClass: 'services.write', method: 'POST', url: '/api/v1/services/nosuch/proxy', body: { method: 'POST', path: '/x' } },
      { actionClass: 'services.write', method: 'POST', url: '/api/v1/services/nosuch/execute', body: { method: 'request', params: { httpMethod: 'DELETE', path: '/x' } } },
      { actionClass: 'services.write', method: 'POST', url: '/api/v1/connectors', body: { name: 'approved-api', baseUrl: 'https://api.example.org', authType: 'none' }, effect: { status: 201 } },
      { actionClass: 'memory.delete', method: 'DELETE', url: '/api/v1/memory', effect: { status: 200 } },
      { actionClass: 'knowledge.delete', method: 'DELETE', url: `/api/v1/brain/knowledge-base/${doc.body.data.id}`, effect: { status: 200 } },
      { actionClass: 'vault.write', method: 'POST', url: '/api/v1/vault/tokens', body: { name: 'new', service: 'example', token: 'sk-new-1234567890', websiteUrl: 'https://example.org' }, effect: { status: 201 } },
      { actionClass: 'vault.write', method: 'DELETE', url: `/api/v1/vault/tokens/${vaultToken.body.data.id}`, effect: { status: 200 } },
    ];
    for (const c of cases) {
      const approvalId = held(await t.request(c.method, c.url, { token: asking.token, body: c.body }));
      const view = (await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: owner.token })).body.data;
      expect(view.actionClass, c.url).toBe(c.actionClass);
      // What the route answers an allowed token, when running it has no lasting effect to compare.
      const expected = c.effect?.status ?? (await t.request(c.method, c.url, { token: allowed.token, body: c.body })).status;
      const approved = await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: owner.token });
      expect(approved.status, approved.text).toBe(200);
      expect(approved.body.data.resultStatus, `${c.method} ${c.url}`).toBe(expected);
      expect(approved.body.data.status).toBe(expected < 300 ? 'executed' : 'failed');
      const result = (await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: asking.token })).body.data.result;
      expect(result.status).toBe(expected);
    }
    // The effects happened once.
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data.map((m: any) => m.id)).not.toContain(mem);
    const vault = (await t.request('GET', '/api/v1/vault/tokens', { token: owner.token })).body.data;
    expect(vault.map((v: any) => v.name)).toEqual(['new']);
    const connectors = (await t.request('GET', '/api/v1/connectors', { token: owner.token })).body.data;
    expect(connectors.filter((c: any) => c.name === 'approved-api')).toHaveLength(1);
  });

  it('services.write holds only calls that may change something', async () => {
    const { token } = await agent(['services:write', 'services:read'], { 'services.write': 'ask' });
    const read = await t.request('POST', '/api/v1/services/nosuch/proxy', { token, body: { method: 'GET', path: '/x' } });
    expect(read.status).not.toBe(202);
    const readRequest = await t.request('POST', '/api/v1/services/nosuch/execute', { token, body: { method: 'request', params: { httpMethod: 'HEAD', path: '/x' } } });
    expect(readRequest.status).not.toBe(202);
    held(await t.request('POST', '/api/v1/services/nosuch/proxy', { token, body: { method: 'PATCH', path: '/x' } }));
    held(await t.request('POST', '/api/v1/services/nosuch/execute', { token, body: { method: 'listRepos' } }));
  });

  it('keeps sensitive bodies sealed and drops them once decided', async () => {
    const { token } = await agent(['services:write'], { 'mail.send': 'ask' });
    const approvalId = held(await t.request('POST', '/api/v1/services/google/mail/send', { token, body: { to: 'ann@example.org', subject: 'Plans', body: 'the-very-secret-text' } }));
    const row = await t.storage.db.selectFrom('approvals').selectAll().where('id', '=', approvalId).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('the-very-secret-text');
    expect(row.body_sealed).not.toBeNull();
    expect(row.description).toContain('ann@example.org');
    await t.request('POST', `/api/v1/approvals/${approvalId}/deny`, { token: owner.token });
    const after = await t.storage.db.selectFrom('approvals').select(['body_sealed', 'status']).where('id', '=', approvalId).executeTakeFirstOrThrow();
    expect(after).toEqual({ body_sealed: null, status: 'denied' });
  });

  it('runs once whatever the number of concurrent approvals', async () => {
    const { token } = await agent(['vault'], { 'vault.write': 'ask' });
    const approvalId = held(await t.request('POST', '/api/v1/vault/tokens', { token, body: { name: 'once-only', service: 'example', token: 'sk-once-1234567890', websiteUrl: 'https://example.org' } }));
    const session = await t.login(owner);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: i % 2 ? session : owner.token })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.body.error === 'CONFLICT')).toHaveLength(7);
    const stored = (await t.request('GET', '/api/v1/vault/tokens', { token: owner.token })).body.data.filter((v: any) => v.name === 'once-only');
    expect(stored).toHaveLength(1);
  });
});

describe('two nodes', () => {
  it('an approval sent to both nodes at once runs on one of them, once', async () => {
    const { app: other } = await t.openNode();
    try {
      const { token } = await agent(['vault'], { 'vault.write': 'ask' });
      const approvalId = held(await t.request('POST', '/api/v1/vault/tokens', { token, body: { name: 'two-nodes', service: 'example', token: 'sk-two-1234567890', websiteUrl: 'https://example.org' } }));
      const approveOn = (node: typeof other) =>
        node.inject({ method: 'POST', url: `/api/v1/approvals/${approvalId}/approve`, headers: { authorization: `Bearer ${owner.token}` } });
      const answers = await Promise.all([approveOn(t.app), approveOn(other), approveOn(t.app), approveOn(other)]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409]);
      const stored = (await t.request('GET', '/api/v1/vault/tokens', { token: owner.token })).body.data.filter((v: any) => v.name === 'two-nodes');
      expect(stored).toHaveLength(1);
      // Whichever node ran it, the requesting token reads the answer on either.
      const onOther = await other.inject({ method: 'GET', url: `/api/v1/approvals/${approvalId}`, headers: { authorization: `Bearer ${token}` } });
      expect(onOther.json().data).toMatchObject({ status: 'executed', result: { status: 201 } });
    } finally {
      await other.close();
    }
  });
});

describe('what stops an approval', () => {
  it('deny: the request never runs', async () => {
    const seen: AccountEvent[] = [];
    const stop = t.container.events.subscribe(owner.id, (event) => seen.push(event));
    const { token } = await agent(['memory'], { 'memory.delete': 'ask' });
    const id = await remember('denied deletion');
    const approvalId = held(await t.request('DELETE', `/api/v1/memory/${id}`, { token }));
    const denied = await t.request('POST', `/api/v1/approvals/${approvalId}/deny`, { token: owner.token });
    expect(denied.body.data).toMatchObject({ status: 'denied', resultStatus: null });
    stop();
    expect(seen.find((e) => e.type === 'approval.decided')?.data).toMatchObject({ approvalId, decision: 'denied' });
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data.map((m: any) => m.id)).toContain(id);
    expectError(await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: owner.token }), 409, 'CONFLICT');
    expect((await t.request('GET', `/api/v1/approvals/${approvalId}`, { token })).body.data.status).toBe('denied');
    expect((await t.request('GET', '/api/v1/approvals', { token: owner.token, query: { status: 'denied' } })).body.data.map((a: any) => a.id)).toContain(approvalId);
  });

  it('expiry: a pending approval past its time reads expired and can no longer be approved', async () => {
    const { token } = await agent(['memory'], { 'memory.delete': 'ask' });
    const id = await remember('expires before approval');
    const approvalId = held(await t.request('DELETE', `/api/v1/memory/${id}`, { token }));
    // The clock moved on: the approval's time is written into the past.
    await t.storage.db.updateTable('approvals').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', approvalId).execute();
    expect((await t.request('GET', `/api/v1/approvals/${approvalId}`, { token })).body.data.status).toBe('expired');
    expect((await t.request('GET', '/api/v1/approvals', { token: owner.token, query: { status: 'expired' } })).body.data.map((a: any) => a.id)).toContain(approvalId);
    expect((await t.request('GET', '/api/v1/approvals', { token: owner.token, query: { status: 'pending' } })).body.data.map((a: any) => a.id)).not.toContain(approvalId);
    const refused = expectError(await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: owner.token }), 409, 'CONFLICT');
    expect(refused.details).toEqual({ status: 'expired' });
    await t.container.approvals.sweep();
    const row = await t.storage.db.selectFrom('approvals').select(['status', 'body_sealed']).where('id', '=', approvalId).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'expired', body_sealed: null });
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data.map((m: any) => m.id)).toContain(id);
  });

  it('the default lifetime is 15 minutes', async () => {
    const { token } = await agent(['memory'], { 'memory.delete': 'ask' });
    const before = Date.now();
    const res = await t.request('DELETE', `/api/v1/memory/${await remember('x')}`, { token });
    const lifetime = Date.parse(res.body.data.expiresAt) - before;
    expect(lifetime).toBeGreaterThan(15 * 60_000 - 5_000);
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000 + 1_000);
  });

  it('a token revoked before approval makes the approval fail', async () => {
    const { token, id: tokenId } = await agent(['memory'], { 'memory.delete': 'ask' });
    const id = await remember('survives a revoked token');
    const approvalId = held(await t.request('DELETE', `/api/v1/memory/${id}`, { token }));
    expect((await t.request('DELETE', `/api/v1/tokens/${tokenId}`, { token: owner.token })).status).toBe(200);
    const approved = await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: owner.token });
    expect(approved.body.data).toMatchObject({ status: 'failed', resultStatus: 401 });
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data.map((m: any) => m.id)).toContain(id);
  });

  it('a scope taken away before approval makes the approval fail', async () => {
    const { token, id: tokenId } = await agent(['memory', 'knowledge'], { 'memory.delete': 'ask' });
    const id = await remember('survives a narrowed token');
    const approvalId = held(await t.request('DELETE', `/api/v1/memory/${id}`, { token }));
    expect((await t.request('PUT', `/api/v1/tokens/${tokenId}`, { token: owner.token, body: { scopes: ['knowledge'] } })).status).toBe(200);
    const approved = await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: owner.token });
    expect(approved.body.data).toMatchObject({ status: 'failed', resultStatus: 403 });
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data.map((m: any) => m.id)).toContain(id);
  });

  it('a replay whose node died is written failed by the sweep once its lease is over, and never run again', async () => {
    const requester = await agent(['memory'], { 'memory.delete': 'ask' });
    const bystander = await agent(['memory']);
    const repo = createApprovalsRepo(t.storage.db, t.storage.dialect);
    const ownerTokenId = (await t.container.tokens.authenticate(owner.token))!.tokenId;
    const lost = await remember('its deletion was interrupted');
    const running = await remember('its deletion is still running');
    const lostId = held(await t.request('DELETE', `/api/v1/memory/${lost}`, { token: requester.token }));
    const runningId = held(await t.request('DELETE', `/api/v1/memory/${running}`, { token: requester.token }));
    // What a node leaves when it dies during a replay: the claim it won, and no outcome. One
    // claim is older than any replay can take, the other was just made.
    const longAgo = new Date(Date.now() - 2 * replayLeaseMs({ deviceCommandMs: EXEC_HARD_LIMIT_MS, deviceRequestMs: t.config.afp.requestTimeoutMs, outboundMs: t.config.outboundTimeoutMs })).toISOString();
    expect(await repo.decide(owner.id, lostId, 'approved', ownerTokenId, longAgo)).toBe(true);
    expect(await repo.decide(owner.id, runningId, 'approved', ownerTokenId, new Date().toISOString())).toBe(true);
    expect((await t.request('GET', `/api/v1/approvals/${lostId}`, { token: owner.token })).body.data.status).toBe('approved');

    await t.container.approvals.sweep();
    const failed = (await t.request('GET', `/api/v1/approvals/${lostId}`, { token: requester.token })).body.data;
    expect(failed).toMatchObject({ status: 'failed', resultStatus: 500, executedAt: null });
    expect(failed.result).toEqual({ status: 500, body: { error: 'INTERNAL_ERROR', message: expect.stringContaining('The server stopped while running this approved request') } });
    expect(failed.result.body.message).toContain('It was not run again');
    expect((await t.request('GET', `/api/v1/approvals/${lostId}`, { token: owner.token })).body.data).toMatchObject({ status: 'failed', resultStatus: 500, result: null });
    expectError(await t.request('GET', `/api/v1/approvals/${lostId}`, { token: bystander.token }), 404, 'NOT_FOUND');
    // The replay that may still be running is left alone.
    expect((await t.request('GET', `/api/v1/approvals/${runningId}`, { token: owner.token })).body.data.status).toBe('approved');
    // Not run again, neither by the sweep nor by a second approval.
    expectError(await t.request('POST', `/api/v1/approvals/${lostId}/approve`, { token: owner.token }), 409, 'CONFLICT');
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data.map((m: any) => m.id)).toEqual(expect.arrayContaining([lost, running]));
    const row = await t.storage.db.selectFrom('approvals').select(['body_sealed']).where('id', '=', lostId).executeTakeFirstOrThrow();
    expect(row.body_sealed).toBeNull();

    // Audited once, as the end of the approval, however often the sweep runs.
    await t.container.approvals.sweep();
    const audit = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'approval.*', limit: 100 } });
    const interrupted = audit.body.data.filter((e: any) => e.targetId === lostId && e.action === 'approval.interrupted');
    expect(interrupted).toHaveLength(1);
    expect(interrupted[0]).toMatchObject({ outcome: 'failure', details: { actionClass: 'memory.delete', tokenId: requester.id, retried: false, replayStartedAt: longAgo } });
    expect(audit.body.data.filter((e: any) => e.targetId === runningId && e.action === 'approval.interrupted')).toHaveLength(0);
  });

  it('a replay header from outside is refused', async () => {
    const id = await remember('not by a forged replay');
    for (const value of ['guess', 'x'.repeat(43)]) {
      expectError(await t.request('DELETE', `/api/v1/memory/${id}`, { headers: { [APPROVAL_REPLAY_HEADER]: value } }), 401, 'UNAUTHORIZED');
    }
    expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data.map((m: any) => m.id)).toContain(id);
  });
});

describe('MCP', () => {
  it('a tool call held by the policy is a normal result with its approvalId, followed by check_approval', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { token } = await agent(['memory'], { 'memory.delete': 'ask' });
    const id = await remember('deleted through a tool');
    const client = new Client({ name: 'approvals-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const result = (await client.callTool({ name: 'delete_memory', arguments: { id } })) as any;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 'pending', approvalId: expect.any(String), next: expect.stringContaining('check_approval') });
      const approvalId = result.structuredContent.approvalId as string;
      expect((await t.request('GET', '/api/v1/memory', { token: owner.token })).body.data.map((m: any) => m.id)).toContain(id);
      await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: owner.token });
      expect((await t.request('GET', `/api/v1/approvals/${approvalId}`, { token })).body.data).toMatchObject({ status: 'executed', result: { status: 200 } });
      const checked = (await client.callTool({ name: 'check_approval', arguments: { id: approvalId } })) as any;
      expect(checked.structuredContent).toMatchObject({ approvalId, status: 'executed' });
    } finally {
      await client.close();
    }
  });
});
