import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, ENGINE, type Owner, type TestApp } from '../../test/harness.js';
import { createKeyring } from '../modules/keyring/keyring.service.js';
import type { Storage } from './storage.js';

/**
 * Work that must happen once whatever the number of nodes, raced by two nodes on one database
 * (approval execution, webhook deliveries and OAuth refresh have their own two-node tests, in
 * their modules; docs/decisions/storage.md lists which test proves what).
 */
describe('exactly once across two nodes', () => {
  let t: TestApp;
  let bStorage: Storage;
  let b: FastifyInstance;
  let owner: Owner;

  const onB = async (method: 'GET' | 'POST', url: string, options: { token?: string; body?: unknown } = {}) => {
    const res = await b.inject({
      method,
      url,
      headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...(options.body ? { 'content-type': 'application/json' } : {}) },
      ...(options.body ? { payload: JSON.stringify(options.body) } : {}),
    });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  };

  beforeAll(async () => {
    t = await createTestApp();
    ({ app: b, storage: bStorage } = await t.openNode());
    owner = await t.createOwner();
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });

  it.skipIf(ENGINE !== 'postgres')("a token's first use on both nodes at once writes its lastUsedAt once", async () => {
    // Counts the row writes that change lastUsedAt (a trigger of this test's schema only).
    await sql`create table if not exists touch_log (token_id text not null)`.execute(t.storage.db);
    await sql`create or replace function log_touch() returns trigger language plpgsql as $$
      begin insert into touch_log values (new.id); return new; end $$`.execute(t.storage.db);
    await sql`create trigger tokens_touch after update of last_used_at on tokens for each row execute function log_touch()`.execute(t.storage.db);
    // And every UPDATE statement on tokens, whether it changed a row or not: each node's attempt.
    await sql`create table if not exists touch_attempts (at timestamptz not null default clock_timestamp())`.execute(t.storage.db);
    await sql`create or replace function log_touch_attempt() returns trigger language plpgsql as $$
      begin insert into touch_attempts default values; return null; end $$`.execute(t.storage.db);
    await sql`create trigger tokens_touch_attempt after update on tokens for each statement execute function log_touch_attempt()`.execute(t.storage.db);
    const attempts = async () => Number((await sql<{ n: string }>`select count(*) as n from touch_attempts`.execute(t.storage.db)).rows[0]!.n);

    const created = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'both nodes', scopes: ['memory'] } });
    const { id, token } = created.body.data as { id: string; token: string };
    const before = await attempts();
    const [fromA, fromB] = await Promise.all([t.request('GET', '/api/v1/memory', { token }), onB('GET', '/api/v1/memory', { token })]);
    expect([fromA.status, fromB.status]).toEqual([200, 200]);
    // Both nodes tried: two UPDATE statements, off the request path.
    await vi.waitFor(async () => expect(await attempts()).toBeGreaterThanOrEqual(before + 2), { timeout: 5_000, interval: 5 });
    const writes = await sql<{ n: string }>`select count(*) as n from touch_log where token_id = ${id}`.execute(t.storage.db);
    expect(Number(writes.rows[0]!.n)).toBe(1);
    const row = await t.storage.db.selectFrom('tokens').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.last_used_at).not.toBeNull();
  });

  it('an approved handshake is claimed on one node only; once expired, neither node lets it be approved', async () => {
    const ask = async () => {
      const res = await t.request('POST', '/api/v1/handshakes', { body: { agentId: 'racer', requestedScopes: ['read'], message: 'two nodes' } });
      expect(res.status, res.text).toBe(201);
      return { id: res.body.data.handshakeId as string, claimSecret: res.body.data.claimSecret as string };
    };
    const admin = owner.role === 'admin' ? owner : undefined;
    if (!admin) return expect.unreachable('the first account of a fresh schema is the administrator');

    const asked = await ask();
    expect((await t.request('POST', `/api/v1/handshakes/${asked.id}/approve`, { token: admin.token, body: { scopes: ['memory'] } })).status).toBe(200);
    const claims = await Promise.all([
      t.request('POST', `/api/v1/handshakes/${asked.id}/claim`, { body: { claimSecret: asked.claimSecret } }),
      onB('POST', `/api/v1/handshakes/${asked.id}/claim`, { body: { claimSecret: asked.claimSecret } }),
    ]);
    expect(claims.map((c) => c.status).sort()).toEqual([200, 409]);

    const expiring = await ask();
    await t.storage.db.updateTable('handshakes').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', expiring.id).execute();
    expect((await onB('GET', `/api/v1/handshakes/${expiring.id}/status`)).body.data.status).toBe('denied');
    const approvals = await Promise.all([
      t.request('POST', `/api/v1/handshakes/${expiring.id}/approve`, { token: admin.token, body: { scopes: ['memory'] } }),
      onB('POST', `/api/v1/handshakes/${expiring.id}/approve`, { token: admin.token, body: { scopes: ['memory'] } }),
    ]);
    expect(approvals.map((a) => a.status)).toEqual([409, 409]);
  });

  it('a vault key rotation run from two nodes at once re-wraps each data key once', async () => {
    const owners = [owner, await t.createOwner(), await t.createOwner()];
    for (const o of owners) await t.container.keyring.seal(o.id, 'test', 'a secret');
    // A new active root key in the shared key file; each node's keyring reads it.
    const rotator = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir });
    const next = rotator.roots.addActiveKey();
    const onA = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir });
    const onNodeB = createKeyring({ db: bStorage.db, dataDir: t.config.dataDir });
    const [ra, rb] = await Promise.all([onA.rewrapAll({ batchSize: 1 }), onNodeB.rewrapAll({ batchSize: 1 })]);
    const keys = await t.storage.db.selectFrom('vault_data_keys').select(['root_key_id']).execute();
    expect(ra.rewrapped + rb.rewrapped).toBe(keys.length);
    expect(keys.every((k) => k.root_key_id === next.id)).toBe(true);
    // Every value still opens on both nodes.
    for (const o of owners) expect(await onNodeB.open(o.id, 'test', await onA.seal(o.id, 'test', 'again'))).toBe('again');
  });
});
