import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, ENGINE, type Owner, type TestApp } from '../../test/harness.js';
import type { Storage } from './storage.js';

/**
 * Two API nodes on one PostgreSQL schema, each with its caches (tokens, memory pages, the
 * gateway context): a change made through one is never served stale by it, and the other
 * drops what it cached once the change's notification arrives.
 */
describe.skipIf(ENGINE !== 'postgres')('caches across two nodes sharing PostgreSQL', () => {
  let a: TestApp;
  let bStorage: Storage;
  let b: FastifyInstance;
  let owner: Owner;

  const onB = async (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, body?: unknown) => {
    const res = await b.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  };
  const memoryContents = (body: { data: Array<{ content: string }> }) => body.data.map((e) => e.content);
  /**
   * Resolves once `check` holds, trying again after each notification the node receives (other
   * writes notify too, so the one awaited may come later).
   */
  const afterNotification = async (storage: Storage, check: () => Promise<boolean>) => {
    for (;;) {
      const next = once(storage.changes!.events, 'change');
      if (await check()) return;
      await next;
    }
  };

  /**
   * Waits until each node has counted the token's creation (node A at commit, node B by
   * notification), so that what is cached after stays cached until the change under test. A
   * token's first use writes its lastUsedAt off the request path, but that write is not counted
   * (UNCOUNTED_COLUMNS in write-tracker.ts): it empties no token cache.
   */
  const touchesSettled = async (before: { a: number; b: number }) =>
    vi.waitFor(
      () => {
        expect(a.storage.writes.stamp(['tokens'])).toBeGreaterThanOrEqual(before.a + 1);
        expect(bStorage.writes.stamp(['tokens'])).toBeGreaterThanOrEqual(before.b + 1);
      },
      { timeout: 5_000, interval: 5 },
    );
  const tokenStamps = () => ({ a: a.storage.writes.stamp(['tokens'])!, b: bStorage.writes.stamp(['tokens'])! });

  beforeAll(async () => {
    a = await createTestApp();
    ({ app: b, storage: bStorage } = await a.openNode());
    owner = await a.createOwner();
    // Node B's pool opens its connections now, so that the writes of its first requests (a
    // token's lastUsedAt) are made before the checks below rather than during them.
    await Promise.all(Array.from({ length: 10 }, () => onB('GET', '/api/v1/memory?limit=1', owner.token)));
    expect(a.storage.changes!.listening).toBe(true);
    expect(bStorage.changes!.listening).toBe(true);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a revoked token is refused at once by the node that revoked it, and by the other once notified', async () => {
    const before = tokenStamps();
    const created = await a.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'agent', scopes: ['memory'] } });
    expect(created.status).toBe(201);
    const { id, token } = created.body.data as { id: string; token: string };
    expect((await a.request('GET', '/api/v1/tokens/me/capabilities', { token })).status).toBe(200);
    expect((await onB('GET', '/api/v1/tokens/me/capabilities', token)).status).toBe(200);
    await touchesSettled(before);
    // Both nodes hold it in their caches now.
    for (let i = 0; i < 2; i++) {
      expect((await a.request('GET', '/api/v1/tokens/me/capabilities', { token })).status).toBe(200);
      expect((await onB('GET', '/api/v1/tokens/me/capabilities', token)).status).toBe(200);
    }
    expect((await a.request('DELETE', `/api/v1/tokens/${id}`, { token: owner.token })).status).toBe(200);
    expect((await a.request('GET', '/api/v1/tokens/me/capabilities', { token })).status).toBe(401);
    await afterNotification(bStorage, async () => (await onB('GET', '/api/v1/tokens/me/capabilities', token)).status === 401);
  });

  it('a token revoked through the other node is refused here too, once notified', async () => {
    const before = tokenStamps();
    const created = await onB('POST', '/api/v1/tokens', owner.token, { name: 'agent 2', scopes: ['memory'] });
    expect(created.status).toBe(201);
    const { id, token } = created.body.data as { id: string; token: string };
    expect((await a.request('GET', '/api/v1/memory', { token })).status).toBe(200);
    expect((await onB('GET', '/api/v1/memory', token)).status).toBe(200);
    await touchesSettled(before);
    for (let i = 0; i < 2; i++) expect((await a.request('GET', '/api/v1/memory', { token })).status).toBe(200);
    expect((await onB('DELETE', `/api/v1/tokens/${id}`, owner.token)).status).toBe(200);
    expect((await onB('GET', '/api/v1/memory', token)).status).toBe(401);
    await afterNotification(a.storage, async () => (await a.request('GET', '/api/v1/memory', { token })).status === 401);
  });

  it('a memory entry written through one node is listed by that node at once, and by the other once notified', async () => {
    // Cached on both.
    for (let i = 0; i < 2; i++) {
      await a.request('GET', '/api/v1/memory?limit=20', { token: owner.token });
      await onB('GET', '/api/v1/memory?limit=20', owner.token);
    }
    expect((await a.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'written on node A' } })).status).toBe(201);
    expect(memoryContents((await a.request('GET', '/api/v1/memory?limit=20', { token: owner.token })).body)).toContain('written on node A');
    await afterNotification(bStorage, async () =>
      memoryContents((await onB('GET', '/api/v1/memory?limit=20', owner.token)).body).includes('written on node A'),
    );
    // The gateway context too.
    const context = await onB('GET', '/api/v1/gateway/context', owner.token);
    expect(JSON.stringify(context.body)).toContain('written on node A');
  });

  it('while its listening connection is down a node serves nothing from its caches, and caches again once it listens', async () => {
    await onB('GET', '/api/v1/memory?limit=20', owner.token);
    await onB('GET', '/api/v1/memory?limit=20', owner.token);
    const lost = once(bStorage.changes!.events, 'lost');
    // Ends the listening connections of this schema (both nodes'), as a network failure would.
    const schemaKey = bStorage.changes!.channel.slice('hearth_changes_'.length);
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE starts_with(application_name, ${`hearth_${schemaKey}_`})`.execute(a.storage.db);
    await lost;
    expect(bStorage.writes.stamp(['memory_entries'])).toBeUndefined();
    const listening = once(bStorage.changes!.events, 'listening');
    // Node A writes; node B cannot be told, so it must read the table itself.
    await a.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'written while B was deaf' } });
    expect(memoryContents((await onB('GET', '/api/v1/memory?limit=20', owner.token)).body)).toContain('written while B was deaf');
    await listening;
    expect(bStorage.changes!.listening).toBe(true);
    expect(bStorage.writes.stamp(['memory_entries'])).toEqual(expect.any(Number));
    expect(memoryContents((await onB('GET', '/api/v1/memory?limit=20', owner.token)).body)).toContain('written while B was deaf');
  });
});
