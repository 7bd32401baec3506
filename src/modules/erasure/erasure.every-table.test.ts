/**
 * Deleting an account leaves nothing of it in the database: an account with data in as many
 * areas as the API offers (memory, knowledge, personas, skills, vault, tokens and sessions, a
 * handshake, a held approval, a webhook and its deliveries, a connector, chat, the marketplace,
 * an export, the audit log, the administrator's record of creating it) is deleted, then EVERY
 * table of the migrated database, whoever declares it, is read whole: no value anywhere holds the
 * account's id or its email. A table added later that the deletion misses fails here. Another
 * account's data is intact, on the engine under test.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Owner, type TestApp } from '../../../test/harness.js';
import { policyToken } from '../../../test/approvals.helpers.js';

let t: TestApp;
let admin: Owner;
let alice: Owner;
let bob: Owner;

async function ok<T = any>(res: { status: number; text: string; body: T }, status: number): Promise<T> {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
  return res.body;
}

function upload(name: string, text: string): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----erasure-${randomBytes(8).toString('hex')}`;
  const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/markdown\r\n\r\n${text}\r\n--${boundary}--\r\n`);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Data of `owner` in every area the API reaches without outside services; answers their skill's listing. */
async function seed(owner: Owner): Promise<{ listingId: string }> {
  const as = (method: 'POST' | 'PUT' | 'PATCH', url: string, body: unknown, token = owner.token) => t.request(method, url, { token, body });
  const agent = await t.tokenWithScopes(owner, ['memory', 'chat', 'knowledge']);
  const first = (await ok(await as('POST', '/api/v1/memory', { content: `Lives in Lyon (${owner.id.slice(-4)})`, kind: 'fact', tags: ['home'] }, agent), 201)).data;
  await ok(await as('POST', '/api/v1/memory', { content: `Lives in Paris (${owner.id.slice(-4)})`, kind: 'fact', supersedes: [first.id] }, agent), 201);
  await ok(await as('POST', '/api/v1/memory', { content: 'Prefers tea', pinned: true }), 201);
  const file = upload('recipes.md', '# Recipes\n\n## Bread\n\nFlour, water, salt.\n\n## Tea\n\nBoil water.\n');
  const doc = (await ok(await t.request('POST', '/api/v1/brain/knowledge-base/upload', { token: owner.token, body: file.body, headers: file.headers }), 201)).data;
  const persona = (await ok(await as('POST', '/api/v1/personas', { name: 'Chef', description: 'Cooks', soul_content: 'You cook.' }), 201)).data;
  await ok(await t.request('POST', `/api/v1/personas/${persona.id}/activate`, { token: owner.token }), 200);
  const skill = (await ok(await as('POST', '/api/v1/skills', { name: `bake-${owner.id.slice(-6).toLowerCase()}`, description: 'Bakes bread', category: 'kitchen' }), 201)).data;
  await ok(await as('POST', `/api/v1/personas/${persona.id}/documents`, { documentId: doc.id }), 201);
  await ok(await as('POST', `/api/v1/personas/${persona.id}/skills`, { skillId: skill.id }), 201);
  await ok(await as('POST', `/api/v1/skills/${skill.id}/documents`, { documentId: doc.id }), 201);
  await ok(await as('PUT', '/api/v1/identity', { name: 'Ada', professional: { role: 'engineer' } }), 200);
  await ok(await as('PUT', '/api/v1/preferences', { theme: 'dark' }), 200);
  await ok(await as('POST', '/api/v1/vault/tokens', { name: 'stripe', service: 'stripe', token: `sk-${randomBytes(12).toString('hex')}`, websiteUrl: 'https://stripe.com' }), 201);
  await ok(await as('POST', '/api/v1/connectors', { name: 'billing-api', baseUrl: 'https://api.example.com', authType: 'none' }), 201);
  await ok(await as('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/hearth', events: ['token.created'] }), 201);
  // Made after the webhook, so that its event is queued as a delivery of the account.
  await t.tokenWithScopes(owner, ['identity']);
  await ok(await as('POST', '/api/v1/brain/chat', { message: 'How do I bake bread?' }, agent), 200);
  // A handshake addressed to the account, approved: a token of kind handshake.
  const handshake = (await ok(await t.request('POST', '/api/v1/handshakes', { body: { agentId: `agent-${owner.id}`, requestedScopes: ['read'], message: 'Hello', ownerId: owner.id } }), 201)).data;
  await ok(await t.request('POST', `/api/v1/handshakes/${handshake.handshakeId}/approve`, { token: owner.token }), 200);
  // A token under a policy, and a request of it held for approval.
  const held = await policyToken(t, owner, ['memory'], { 'memory.write': 'ask' });
  await ok(await as('POST', '/api/v1/memory', { content: 'Held for the owner' }, held.token), 202);
  // A listing of the account's skill.
  const listing = (await ok(await as('POST', '/api/v1/marketplace/listings', { type: 'skill', refId: String(skill.id), title: `Bread ${owner.id}` }), 201)).data;
  await t.login(owner);
  return { listingId: listing.id };
}

/** Every table the database has now, whoever declares it (FTS5's tables and their shadows included). */
async function allTables(): Promise<string[]> {
  const db = t.storage.db;
  if (t.storage.dialect === 'postgres') {
    const { rows } = await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`.execute(db);
    return rows.map((row) => row.name).sort();
  }
  const { rows } = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(db);
  return rows.map((row) => row.name).sort();
}

/** Every `table.column` (with the row count) whose value holds one of `needles`, over every row of every table. */
async function mentions(needles: readonly string[]): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  const wanted = needles.map((needle) => needle.toLowerCase());
  for (const table of await allTables()) {
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}`.execute(t.storage.db);
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (value === null || value === undefined) continue;
        const text = value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : String(value);
        if (wanted.some((needle) => text.toLowerCase().includes(needle))) found[`${table}.${column}`] = (found[`${table}.${column}`] ?? 0) + 1;
      }
    }
  }
  return found;
}

let aliceListing: string;
let bobListing: string;
let bobInstalledSkill: number;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.createOwner('Admin');
  // Alice's account is made by the administrator, whose audit log records it (and her email).
  const email = `alice-${randomBytes(4).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const created = (await ok(await t.request('POST', '/api/v1/users', { token: admin.token, body: { email, password, name: 'Alice' } }), 201)).data;
  const session = (await ok(await t.request('POST', '/api/v1/auth/login', { body: { email, password } }), 200)).data.token;
  const master = (await ok(await t.request('POST', '/api/v1/tokens/master/regenerate', { token: session, body: { password } }), 200)).data.token;
  alice = { id: created.id, email, password, token: master, role: 'user' };
  bob = await t.createOwner('Bob');

  aliceListing = (await seed(alice)).listingId;
  bobListing = (await seed(bob)).listingId;
  // Across accounts: Bob installs and rates Alice's listing, Alice rates Bob's.
  bobInstalledSkill = (await ok(await t.request('POST', `/api/v1/marketplace/listings/${aliceListing}/install`, { token: bob.token }), 201)).data.id;
  await ok(await t.request('POST', `/api/v1/marketplace/listings/${aliceListing}/rate`, { token: bob.token, body: { rating: 4 } }), 200);
  await ok(await t.request('POST', `/api/v1/marketplace/listings/${bobListing}/rate`, { token: alice.token, body: { rating: 5, review: 'Lovely' } }), 200);
  // An export, whose job row and archive are the account's too.
  const job = (await ok(await t.request('POST', '/api/v1/export', { token: alice.token, body: {} }), 201)).data;
  for (let i = 0; i < 200; i++) {
    if ((await t.request('GET', `/api/v1/export/${job.id}`, { token: alice.token })).body.data.status !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  // A wrong password first: its failure is audited and counted, and must go with the account too.
  expect((await t.request('DELETE', '/api/v1/users/me', { token: alice.token, body: { password: 'wrong', confirmEmail: email } })).status).toBe(401);
}, 60_000);

afterAll(async () => t?.close());

describe('deleting an account, seen from every table of the database', () => {
  it('leaves no value anywhere that holds the account id or email, and another account intact', async () => {
    // Vectors computed behind the writes are in the database before anything is compared.
    await t.container.searchIndexer?.runNow();
    // The seed reached the tables it means to: the walk below would otherwise prove little.
    const before = await mentions([alice.id]);
    const seededTables = new Set(Object.keys(before).map((key) => key.split('.')[0]));
    for (const table of [
      'memory_entries', 'kb_documents', 'kb_passages', 'personas', 'skills', 'persona_documents', 'persona_skills', 'skill_documents',
      'identity', 'preferences', 'vault_tokens', 'vault_data_keys', 'connectors', 'webhook_endpoints', 'webhook_deliveries', 'tokens',
      'handshakes', 'token_policies', 'approvals', 'chat_conversations', 'chat_messages', 'marketplace_listings', 'marketplace_ratings',
      'export_jobs', 'search_vectors', 'audit_log', 'users',
    ]) {
      expect(seededTables, `the seed wrote nothing of the account into ${table}`).toContain(table);
    }
    const bobBefore = await mentions([bob.id]);
    const adminAuditBefore = await t.storage.db.selectFrom('audit_log').select('id').where('owner_id', '=', admin.id).execute();

    const res = await t.request('DELETE', '/api/v1/users/me', { token: alice.token, body: { password: alice.password, confirmEmail: alice.email } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.files).toBe(1);

    expect(await mentions([alice.id, alice.email])).toEqual({});

    // Bob's rows are all there, but his rating of Alice's listing, which went with it.
    const bobAfter = await mentions([bob.id]);
    expect({ ...bobAfter, 'marketplace_ratings.user_id': 0 }).toEqual({ ...bobBefore, 'marketplace_ratings.user_id': 0 });
    expect(bobAfter['marketplace_ratings.user_id'] ?? 0).toBe((bobBefore['marketplace_ratings.user_id'] ?? 0) - 1);
    // His copy of her skill is his own and stays; his listing no longer counts her rating.
    expect((await t.request('GET', `/api/v1/skills/${bobInstalledSkill}`, { token: bob.token })).status).toBe(200);
    const listing = (await ok(await t.request('GET', `/api/v1/marketplace/listings/${bobListing}`, { token: bob.token }), 200)).data;
    expect(listing).toMatchObject({ ratingCount: 0 });
    expect((await t.request('GET', `/api/v1/marketplace/listings/${aliceListing}`, { token: bob.token })).status).toBe(404);
    for (const url of ['/api/v1/memory', '/api/v1/brain/knowledge-base', '/api/v1/personas', '/api/v1/vault/tokens', '/api/v1/webhooks', '/api/v1/gateway/context']) {
      expect((await t.request('GET', url, { token: bob.token })).status, url).toBe(200);
    }
    expect((await t.request('GET', '/api/v1/memory', { token: bob.token })).body.data.length).toBeGreaterThan(0);

    // The administrator's log keeps everything but its entries about her ("created this account").
    const adminAuditAfter = await t.storage.db.selectFrom('audit_log').select('id').where('owner_id', '=', admin.id).execute();
    expect(adminAuditAfter.length).toBe(adminAuditBefore.length - 1);
    // The log is append-only again for everyone else: the erasure's marker is gone.
    expect(await t.storage.db.selectFrom('account_erasures').selectAll().execute()).toEqual([]);
    await expect(t.storage.db.deleteFrom('audit_log').where('owner_id', '=', bob.id).execute()).rejects.toThrow(/append-only/);
  }, 120_000);
});
