import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type ApiResponse, type Owner, type TestApp } from '../../../test/harness.js';

let t: TestApp;
let admin: Owner;
let other: Owner;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface HandshakeInput {
  agentId?: string;
  requestedScopes?: string[];
  message?: string;
  ownerId?: string;
}

async function createHandshake(app: TestApp, input: HandshakeInput = {}): Promise<string> {
  const res = await app.request('POST', '/api/v1/handshakes', {
    body: { agentId: 'agent-1', requestedScopes: ['read'], message: 'I am a test agent', ...input },
    headers: { 'user-agent': 'test-agent/1.0' },
  });
  if (res.status !== 201) throw new Error(`createHandshake failed: ${res.status} ${res.text}`);
  return res.body.data.handshakeId;
}

async function handshakeTokens(app: TestApp, owner: Owner, handshakeId: string) {
  const res = await app.request('GET', '/api/v1/tokens', { token: owner.token, query: { kind: 'handshake', includeRevoked: true, limit: 200 } });
  expect(res.status).toBe(200);
  return (res.body.data as Array<{ id: string; handshakeId: string; scopes: string[] }>).filter((tok) => tok.handshakeId === handshakeId);
}

// Each app lives only inside its describe block: no two test apps exist at once in this file.
describe('with the default settings', () => {
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.createOwner('Admin'); // the first account: where handshakes go by default
    other = await t.createOwner('Other');
  });
  afterAll(async () => t.close());

  describe('happy path', () => {
    it('creates, polls, approves, and the token authenticates with exactly the requested scopes', async () => {
      const created = await t.request('POST', '/api/v1/handshakes', {
        body: { agentId: 'claude-desktop', requestedScopes: ['read', 'availability'], message: 'Scheduling assistant' },
        headers: { 'user-agent': 'agent-ua/2.0' },
      });
      expect(created.status).toBe(201);
      const { handshakeId } = created.body.data;
      expect(handshakeId).toMatch(/^hs_[A-Za-z0-9_-]{22}$/);
      expect(created.body.data).toEqual({
        handshakeId,
        status: 'pending',
        expiresAt: expect.any(String),
        statusUrl: `/api/v1/handshakes/${handshakeId}/status`,
        claimSecret: expect.stringMatching(/^hsc_[A-Za-z0-9_-]{43}$/),
        claimUrl: `/api/v1/handshakes/${handshakeId}/claim`,
      });
      // Default lifetime: seven days.
      const ttl = Date.parse(created.body.data.expiresAt) - Date.now();
      expect(ttl).toBeGreaterThan(7 * 24 * 3_600_000 - 60_000);
      expect(ttl).toBeLessThanOrEqual(7 * 24 * 3_600_000);

      const polled = await t.request('GET', created.body.data.statusUrl);
      expect(polled.status).toBe(200);
      expect(polled.body.data).toEqual({ handshakeId, status: 'pending', expiresAt: created.body.data.expiresAt, decidedAt: null });

      const list = await t.request('GET', '/api/v1/handshakes', { token: admin.token });
      expect(list.status).toBe(200);
      const item = list.body.data.find((h: { handshakeId: string }) => h.handshakeId === handshakeId);
      expect(item).toMatchObject({
        agentId: 'claude-desktop',
        requestedScopes: ['read', 'availability'],
        message: 'Scheduling assistant',
        status: 'pending',
        tokenId: null,
        clientIp: '127.0.0.1',
        userAgent: 'agent-ua/2.0',
        decidedAt: null,
        revokedAt: null,
      });

      const approved = await t.request('POST', `/api/v1/handshakes/${handshakeId}/approve`, { token: admin.token });
      expect(approved.status).toBe(200);
      const secret: string = approved.body.data.token;
      expect(typeof secret).toBe('string');
      expect(approved.body.data.handshake).toMatchObject({ handshakeId, status: 'approved', tokenId: expect.any(String), decidedAt: expect.any(String) });

      const principal = await t.container.tokens.authenticate(secret);
      expect(principal).not.toBeNull();
      expect(principal!.kind).toBe('handshake');
      expect(principal!.ownerId).toBe(admin.id);
      expect(principal!.tokenId).toBe(approved.body.data.handshake.tokenId);
      expect([...principal!.scopes].sort()).toEqual(['availability', 'read']);

      const tokens = await handshakeTokens(t, admin, handshakeId);
      expect(tokens).toHaveLength(1);
      expect(tokens[0]!.id).toBe(approved.body.data.handshake.tokenId);

      const after = await t.request('GET', `/api/v1/handshakes/${handshakeId}/status`);
      expect(after.status).toBe(200);
      expect(after.body.data.status).toBe('approved');
      expect(after.body.data.decidedAt).toBe(approved.body.data.handshake.decidedAt);
      expect(after.text).not.toContain(secret);
      expect(after.body.data).not.toHaveProperty('token');
      expect(after.body.data).not.toHaveProperty('tokenId');

      // The token works over HTTP on a route that needs `read`, and on an any-token route.
      expect((await t.request('GET', '/api/v1/identity', { token: secret })).status).toBe(200);
      const logout = await t.request('POST', '/api/v1/auth/logout', { token: secret });
      expect(logout.status).toBe(200);
    });

    it('sends the request to the account named by ownerId', async () => {
      const id = await createHandshake(t, { ownerId: other.id, agentId: 'for-other' });
      const otherList = await t.request('GET', '/api/v1/handshakes', { token: other.token });
      expect(otherList.body.data.map((h: { handshakeId: string }) => h.handshakeId)).toContain(id);
      const adminList = await t.request('GET', '/api/v1/handshakes', { token: admin.token });
      expect(adminList.body.data.map((h: { handshakeId: string }) => h.handshakeId)).not.toContain(id);
    });

    it('answers 404 for an unknown ownerId', async () => {
      const res = await t.request('POST', '/api/v1/handshakes', {
        body: { agentId: 'a', requestedScopes: ['read'], message: 'hi', ownerId: 'usr_DOESNOTEXIST' },
      });
      expectError(res, 404, 'NOT_FOUND');
    });

    it('answers 404 on the status of an unknown handshake', async () => {
      expectError(await t.request('GET', '/api/v1/handshakes/hs_unknownunknownunknown/status'), 404, 'NOT_FOUND');
    });

    it('is public: a token sent along is neither needed nor used', async () => {
      const res = await t.request('POST', '/api/v1/handshakes', {
        token: 'not-a-real-token',
        body: { agentId: 'with-bad-token', requestedScopes: ['read'], message: 'hello' },
      });
      expect(res.status).toBe(201);
    });
  });

  describe('validation', () => {
    const valid = { agentId: 'agent', requestedScopes: ['read'], message: 'hello' };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['an empty agentId', { ...valid, agentId: '' }, 'body.agentId'],
      ['an agentId over 128 characters', { ...valid, agentId: 'a'.repeat(129) }, 'body.agentId'],
      ['no requested scopes', { ...valid, requestedScopes: [] }, 'body.requestedScopes'],
      ['a scope a handshake may not ask for', { ...valid, requestedScopes: ['identity'] }, 'body.requestedScopes.0'],
      ['an unknown scope', { ...valid, requestedScopes: ['read', 'everything'] }, 'body.requestedScopes.1'],
      ['a repeated scope', { ...valid, requestedScopes: ['read', 'read'] }, 'body.requestedScopes'],
      ['a message over 1000 characters', { ...valid, message: 'm'.repeat(1001) }, 'body.message'],
      ['no message', { agentId: 'agent', requestedScopes: ['read'] }, 'body.message'],
      ['an unknown field', { ...valid, scopes: ['read'] }, 'body.scopes'],
    ];
    for (const [what, body, field] of cases) {
      it(`refuses ${what}`, async () => {
        const error = expectError(await t.request('POST', '/api/v1/handshakes', { body }), 400, 'VALIDATION_ERROR');
        expect((error.details as Array<{ field: string }>).map((d) => d.field)).toContain(field);
      });
    }

    it('accepts a message of exactly 1000 characters and an agentId of 128', async () => {
      const res = await t.request('POST', '/api/v1/handshakes', {
        body: { agentId: 'a'.repeat(128), requestedScopes: ['read', 'professional', 'availability'], message: 'm'.repeat(1000) },
      });
      expect(res.status).toBe(201);
    });
  });

  describe('decisions', () => {
    it('decides once: approving or denying a decided handshake is 409', async () => {
      const id = await createHandshake(t);
      expect((await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token })).status).toBe(200);
      expectError(await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token }), 409, 'CONFLICT');
      expectError(await t.request('POST', `/api/v1/handshakes/${id}/deny`, { token: admin.token }), 409, 'CONFLICT');
      expect(await handshakeTokens(t, admin, id)).toHaveLength(1);
    });

    it('denies: the status reads denied and no token is made', async () => {
      const id = await createHandshake(t);
      const denied = await t.request('POST', `/api/v1/handshakes/${id}/deny`, { token: admin.token });
      expect(denied.status).toBe(200);
      expect(denied.body.data).toMatchObject({ handshakeId: id, status: 'denied', tokenId: null, decidedAt: expect.any(String) });
      const polled = await t.request('GET', `/api/v1/handshakes/${id}/status`);
      expect(polled.body.data).toMatchObject({ status: 'denied', decidedAt: denied.body.data.decidedAt });
      expectError(await t.request('POST', `/api/v1/handshakes/${id}/deny`, { token: admin.token }), 409, 'CONFLICT');
      expectError(await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token }), 409, 'CONFLICT');
      expect(await handshakeTokens(t, admin, id)).toHaveLength(0);
    });

    it('approves with narrowed scopes and an expiry', async () => {
      const id = await createHandshake(t, { requestedScopes: ['read', 'professional', 'availability'] });
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const res = await t.request('POST', `/api/v1/handshakes/${id}/approve`, {
        token: admin.token,
        body: { scopes: ['professional'], expiresAt },
      });
      expect(res.status).toBe(200);
      const principal = await t.container.tokens.authenticate(res.body.data.token);
      expect([...principal!.scopes]).toEqual(['professional']);
      expect((await t.request('GET', '/api/v1/identity/professional', { token: res.body.data.token })).status).toBe(200);
      expectError(await t.request('GET', '/api/v1/identity', { token: res.body.data.token }), 403, 'INSUFFICIENT_SCOPE');
      const [token] = await handshakeTokens(t, admin, id);
      expect(token).toMatchObject({ scopes: ['professional'], expiresAt });
      // The handshake still records what was asked for.
      expect(res.body.data.handshake.requestedScopes).toEqual(['read', 'professional', 'availability']);
    });

    it('grants scopes an agent cannot ask for, such as memory and personas, when the owner widens them', async () => {
      const id = await createHandshake(t, { requestedScopes: ['read'] });
      const res = await t.request('POST', `/api/v1/handshakes/${id}/approve`, {
        token: admin.token,
        body: { scopes: ['read', 'memory', 'personas'] },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.handshake).toMatchObject({ requestedScopes: ['read'], grantedScopes: ['read', 'memory', 'personas'] });
      expect((await t.request('GET', '/api/v1/memory', { token: res.body.data.token })).status).toBe(200);
      expect((await t.request('GET', '/api/v1/personas', { token: res.body.data.token })).status).toBe(200);
      expectError(await t.request('GET', '/api/v1/skills', { token: res.body.data.token }), 403, 'INSUFFICIENT_SCOPE');
      const [token] = await handshakeTokens(t, admin, id);
      expect(token).toMatchObject({ scopes: ['read', 'memory', 'personas'] });
    });

    it('refuses unknown or empty scopes and a past expiry, and leaves the handshake pending', async () => {
      const id = await createHandshake(t, { requestedScopes: ['read'] });
      const unknown = expectError(
        await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token, body: { scopes: ['read', 'admin'] } }),
        400,
        'VALIDATION_ERROR',
      );
      expect(unknown.details).toEqual([expect.objectContaining({ field: 'body.scopes.1' })]);
      expectError(
        await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token, body: { scopes: [] } }),
        400,
        'VALIDATION_ERROR',
      );
      const past = expectError(
        await t.request('POST', `/api/v1/handshakes/${id}/approve`, {
          token: admin.token,
          body: { expiresAt: new Date(Date.now() - 1000).toISOString() },
        }),
        400,
        'VALIDATION_ERROR',
      );
      expect(past.details).toEqual([{ field: 'body.expiresAt', message: 'must be in the future' }]);
      expect((await t.request('GET', `/api/v1/handshakes/${id}/status`)).body.data.status).toBe('pending');
      expect(await handshakeTokens(t, admin, id)).toHaveLength(0);
      const approved = await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token, body: {} });
      expect(approved.status).toBe(200);
      expect(approved.body.data.handshake.grantedScopes).toEqual(['read']);
    });

    it('lets exactly one of two concurrent approvals win, and makes one token', async () => {
      for (let round = 0; round < 5; round++) {
        const id = await createHandshake(t);
        const results = await Promise.all([
          t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token }),
          t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token }),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
        expectError(results.find((r) => r.status === 409)!, 409, 'CONFLICT');
        const tokens = await handshakeTokens(t, admin, id);
        expect(tokens).toHaveLength(1);
        expect(tokens[0]!.id).toBe(results.find((r) => r.status === 200)!.body.data.handshake.tokenId);
      }
    });

    it('lets exactly one of a concurrent approval and denial win', async () => {
      const id = await createHandshake(t);
      const [approve, deny] = await Promise.all([
        t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token }),
        t.request('POST', `/api/v1/handshakes/${id}/deny`, { token: admin.token }),
      ]);
      expect([approve.status, deny.status].sort()).toEqual([200, 409]);
      const status = (await t.request('GET', `/api/v1/handshakes/${id}/status`)).body.data.status;
      expect(status).toBe(approve.status === 200 ? 'approved' : 'denied');
      expect(await handshakeTokens(t, admin, id)).toHaveLength(approve.status === 200 ? 1 : 0);
    });
  });

  describe('revoke', () => {
    it('revokes an approved handshake: its token is refused on the next request', async () => {
      const id = await createHandshake(t);
      const approved = await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token });
      const secret: string = approved.body.data.token;
      expect(await t.container.tokens.authenticate(secret)).not.toBeNull(); // cached on SQLite: revoke must still win

      const revoked = await t.request('DELETE', `/api/v1/handshakes/${id}`, { token: admin.token });
      expect(revoked.status).toBe(200);
      expect(revoked.body.data).toMatchObject({ handshakeId: id, status: 'denied', revokedAt: expect.any(String) });

      expect(await t.container.tokens.authenticate(secret)).toBeNull();
      expectError(await t.request('POST', '/api/v1/auth/logout', { token: secret }), 401, 'UNAUTHORIZED');
      expect((await t.request('GET', `/api/v1/handshakes/${id}/status`)).body.data.status).toBe('denied');
      const [token] = await handshakeTokens(t, admin, id);
      expect(token).toMatchObject({ status: 'revoked' });

      const again = await t.request('DELETE', `/api/v1/handshakes/${id}`, { token: admin.token });
      expect(again.status).toBe(200);
      expect(again.body.data.revokedAt).toBe(revoked.body.data.revokedAt);
      expectError(await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token }), 409, 'CONFLICT');
    });

    it('revokes a pending handshake: it reads denied and can no longer be approved', async () => {
      const id = await createHandshake(t);
      const revoked = await t.request('DELETE', `/api/v1/handshakes/${id}`, { token: admin.token });
      expect(revoked.body.data).toMatchObject({ status: 'denied', tokenId: null, decidedAt: revoked.body.data.revokedAt });
      expect((await t.request('GET', `/api/v1/handshakes/${id}/status`)).body.data.status).toBe('denied');
      expectError(await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token }), 409, 'CONFLICT');
      expectError(await t.request('POST', `/api/v1/handshakes/${id}/deny`, { token: admin.token }), 409, 'CONFLICT');
    });
  });

  describe('listing', () => {
    it('pages newest first and filters by the status clients see', async () => {
      const owner = await t.createOwner('Lister');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await createHandshake(t, { ownerId: owner.id, agentId: `agent-${i}` }));
      await t.request('POST', `/api/v1/handshakes/${ids[1]}/approve`, { token: owner.token });
      await t.request('POST', `/api/v1/handshakes/${ids[2]}/deny`, { token: owner.token });
      await t.request('DELETE', `/api/v1/handshakes/${ids[3]}`, { token: owner.token });

      const seen: Array<{ handshakeId: string; createdAt: string }> = [];
      let cursor: string | null = null;
      do {
        const res: ApiResponse = await t.request('GET', '/api/v1/handshakes', {
          token: owner.token,
          query: cursor ? { limit: 2, cursor } : { limit: 2 },
        });
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.data);
        cursor = res.body.nextCursor;
      } while (cursor);
      // Every handshake exactly once, newest first. Two made in the same millisecond are ordered
      // by their (random) id, so the expected order is derived from the times the API reports.
      expect(seen.map((h) => h.handshakeId).sort()).toEqual([...ids].sort());
      const newestFirst = [...seen].sort((a, b) =>
        a.createdAt === b.createdAt ? (a.handshakeId < b.handshakeId ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
      );
      expect(seen).toEqual(newestFirst);

      const byStatus = async (status: string) =>
        (await t.request('GET', '/api/v1/handshakes', { token: owner.token, query: { status } })).body.data
          .map((h: { handshakeId: string }) => h.handshakeId)
          .sort();
      expect(await byStatus('pending')).toEqual([ids[0], ids[4]].sort());
      expect(await byStatus('approved')).toEqual([ids[1]]);
      expect(await byStatus('denied')).toEqual([ids[2], ids[3]].sort());
    });

    it('refuses a malformed cursor or status', async () => {
      expectError(await t.request('GET', '/api/v1/handshakes', { token: admin.token, query: { cursor: 'garbage' } }), 400, 'VALIDATION_ERROR');
      expectError(await t.request('GET', '/api/v1/handshakes', { token: admin.token, query: { status: 'expired' } }), 400, 'VALIDATION_ERROR');
    });
  });

  describe('security', () => {
    const ownerRoutes = (id: string): Array<[string, string]> => [
      ['GET', '/api/v1/handshakes'],
      ['POST', `/api/v1/handshakes/${id}/approve`],
      ['POST', `/api/v1/handshakes/${id}/deny`],
      ['DELETE', `/api/v1/handshakes/${id}`],
    ];

    it('answers 401 without a token and with an unknown one', async () => {
      const id = await createHandshake(t);
      for (const [method, url] of ownerRoutes(id)) {
        const res = await t.request(method as 'GET', url);
        expectError(res, 401, 'UNAUTHORIZED');
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
        expectError(await t.request(method as 'GET', url, { token: 'hearth_nope' }), 401, 'UNAUTHORIZED');
      }
    });

    it('answers 403 to a scoped API token, even one holding every handshake scope', async () => {
      const id = await createHandshake(t);
      const scoped = await t.tokenWithScopes(admin, ['read', 'professional', 'availability', 'identity']);
      for (const [method, url] of ownerRoutes(id)) {
        expectError(await t.request(method as 'GET', url, { token: scoped }), 403, 'FORBIDDEN');
      }
      // An agent's own handshake token cannot approve handshakes either.
      const other1 = await createHandshake(t);
      const agentToken = (await t.request('POST', `/api/v1/handshakes/${other1}/approve`, { token: admin.token })).body.data.token;
      expectError(await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: agentToken }), 403, 'FORBIDDEN');
      expect((await t.request('GET', `/api/v1/handshakes/${id}/status`)).body.data.status).toBe('pending');
    });

    it("answers 404 for another owner's handshake, exactly as for an unknown id", async () => {
      const id = await createHandshake(t); // the administrator's
      for (const [method, url] of ownerRoutes(id).slice(1)) {
        const foreign = expectError(await t.request(method as 'POST', url, { token: other.token }), 404, 'NOT_FOUND');
        const unknown = expectError(
          await t.request(method as 'POST', url.replace(id, 'hs_unknownunknownunknown'), { token: other.token }),
          404,
          'NOT_FOUND',
        );
        expect(foreign.message.replace(id, 'X')).toBe(unknown.message.replace('hs_unknownunknownunknown', 'X'));
      }
      expect((await t.request('GET', `/api/v1/handshakes/${id}/status`)).body.data.status).toBe('pending');
      const list = await t.request('GET', '/api/v1/handshakes', { token: other.token, query: { limit: 200 } });
      expect(list.body.data.map((h: { handshakeId: string }) => h.handshakeId)).not.toContain(id);
    });

    it('lets a login session act for the owner', async () => {
      const session = await t.login(admin);
      const id = await createHandshake(t);
      expect((await t.request('POST', `/api/v1/handshakes/${id}/deny`, { token: session })).status).toBe(200);
    });
  });

  describe('claim', () => {
    async function ask(input: HandshakeInput = {}): Promise<{ id: string; claimSecret: string }> {
      const res = await t.request('POST', '/api/v1/handshakes', {
        body: { agentId: 'claimer', requestedScopes: ['read'], message: 'collects its own token', ...input },
      });
      expect(res.status).toBe(201);
      return { id: res.body.data.handshakeId, claimSecret: res.body.data.claimSecret };
    }
    const claim = (id: string, claimSecret: string) => t.request('POST', `/api/v1/handshakes/${id}/claim`, { body: { claimSecret } });

    it('hands the approved token to the agent once, with the granted scopes, and never through the status', async () => {
      const { id, claimSecret } = await ask();
      const early = expectError(await claim(id, claimSecret), 409, 'CONFLICT');
      expect(early.message).toContain('pending');

      const approved = await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token, body: { scopes: ['read', 'memory'] } });
      expect(approved.status).toBe(200);
      const status = await t.request('GET', `/api/v1/handshakes/${id}/status`);
      expect(status.body.data.status).toBe('approved');
      expect(status.text).not.toContain(approved.body.data.token);

      const claimed = await claim(id, claimSecret);
      expect(claimed.status).toBe(200);
      // The same token the owner saw: the out-of-band path keeps working beside the claim.
      expect(claimed.body).toEqual({ data: { token: approved.body.data.token, scopes: ['read', 'memory'] } });
      expect((await t.request('GET', '/api/v1/memory', { token: claimed.body.data.token })).status).toBe(200);

      const again = expectError(await claim(id, claimSecret), 409, 'CONFLICT');
      expect(again.message).toContain('already claimed');
      expect(JSON.stringify(again)).not.toContain(approved.body.data.token);
      const listed = (await t.request('GET', '/api/v1/handshakes', { token: admin.token })).body.data.find(
        (h: { handshakeId: string }) => h.handshakeId === id,
      );
      expect(listed).toMatchObject({ claimedAt: expect.any(String), grantedScopes: ['read', 'memory'] });
    });

    it('keeps the waiting token sealed at rest and erases it once claimed', async () => {
      const { id, claimSecret } = await ask();
      const approved = await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token });
      const row = await t.storage.db.selectFrom('handshakes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.claim_sealed).toMatch(/^v1\./);
      expect(JSON.stringify(row)).not.toContain(approved.body.data.token);
      expect(JSON.stringify(row)).not.toContain(claimSecret);
      expect((await claim(id, claimSecret)).status).toBe(200);
      const after = await t.storage.db.selectFrom('handshakes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(after.claim_sealed).toBeNull();
    });

    it("refuses a wrong secret, another handshake's secret and a missing one, without a token", async () => {
      const first = await ask();
      const second = await ask();
      await t.request('POST', `/api/v1/handshakes/${first.id}/approve`, { token: admin.token });
      expectError(await claim(first.id, second.claimSecret), 403, 'FORBIDDEN');
      expectError(await claim(first.id, `${first.claimSecret}x`), 403, 'FORBIDDEN');
      expectError(await t.request('POST', `/api/v1/handshakes/${first.id}/claim`, { body: {} }), 400, 'VALIDATION_ERROR');
      expectError(await claim('hs_unknownunknownunknow', first.claimSecret), 404, 'NOT_FOUND');
      // The refusals did not use the claim up.
      expect((await claim(first.id, first.claimSecret)).status).toBe(200);
    });

    it('has nothing to hand over after a denial or a revocation, and a revoked token stays refused', async () => {
      const denied = await ask();
      await t.request('POST', `/api/v1/handshakes/${denied.id}/deny`, { token: admin.token });
      expect(expectError(await claim(denied.id, denied.claimSecret), 409, 'CONFLICT').message).toContain('denied');

      const revoked = await ask();
      const approved = await t.request('POST', `/api/v1/handshakes/${revoked.id}/approve`, { token: admin.token });
      expect((await t.request('DELETE', `/api/v1/handshakes/${revoked.id}`, { token: admin.token })).status).toBe(200);
      const refused = expectError(await claim(revoked.id, revoked.claimSecret), 409, 'CONFLICT');
      expect(JSON.stringify(refused)).not.toContain(approved.body.data.token);
      const row = await t.storage.db.selectFrom('handshakes').select('claim_sealed').where('id', '=', revoked.id).executeTakeFirstOrThrow();
      expect(row.claim_sealed).toBeNull();
    });

    it('lets exactly one of several concurrent claims have the token', async () => {
      const { id, claimSecret } = await ask();
      await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token });
      const answers = await Promise.all(Array.from({ length: 4 }, () => claim(id, claimSecret)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409]);
    });

    it('closes the claim window one handshake lifetime after approval, and erases the sealed token', async () => {
      const { id, claimSecret } = await ask();
      await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token });
      // As if the approval had happened eight days ago (the default lifetime is seven).
      const longAgo = new Date(Date.now() - 8 * 24 * 3_600_000).toISOString();
      await t.storage.db.updateTable('handshakes').set({ decided_at: longAgo }).where('id', '=', id).execute();
      // The next handshake anyone asks for erases it, claimed or not.
      await ask();
      const erased = await t.storage.db.selectFrom('handshakes').select('claim_sealed').where('id', '=', id).executeTakeFirstOrThrow();
      expect(erased.claim_sealed).toBeNull();
      const closed = expectError(await claim(id, claimSecret), 409, 'CONFLICT');
      expect(closed.message).toMatch(/could be claimed until/);
    });

    it('records claims and refused claims in the owner’s log, never the token', async () => {
      const { id, claimSecret } = await ask({ agentId: 'claim-audited' });
      const approved = await t.request('POST', `/api/v1/handshakes/${id}/approve`, { token: admin.token });
      await claim(id, 'hsc_wrong');
      await claim(id, claimSecret);
      const log = (await t.request('GET', '/api/v1/audit/log', { token: admin.token, query: { action: 'handshake.claim', limit: 200 } })).body
        .data as Array<{ targetId: string; outcome: string; details: Record<string, unknown> }>;
      const mine = log.filter((e) => e.targetId === id);
      expect(mine.map((e) => e.outcome).sort()).toEqual(['failure', 'success']);
      expect(JSON.stringify(mine)).not.toContain(approved.body.data.token);
      expect(JSON.stringify(mine)).not.toContain(claimSecret);
    });
  });

  describe('audit', () => {
    it('records create, approve, deny and revoke in the owner’s log', async () => {
      const approvedId = await createHandshake(t, { agentId: 'audited' });
      const approved = await t.request('POST', `/api/v1/handshakes/${approvedId}/approve`, { token: admin.token });
      const deniedId = await createHandshake(t);
      await t.request('POST', `/api/v1/handshakes/${deniedId}/deny`, { token: admin.token });
      await t.request('DELETE', `/api/v1/handshakes/${approvedId}`, { token: admin.token });

      const log = async (action: string) =>
        (await t.request('GET', '/api/v1/audit/log', { token: admin.token, query: { action, limit: 200 } })).body.data as Array<{
          action: string;
          targetId: string;
          tokenId: string | null;
          ip: string | null;
          details: Record<string, unknown>;
        }>;

      const created = (await log('handshake.create')).find((e) => e.targetId === approvedId);
      expect(created).toMatchObject({ tokenId: null, ip: '127.0.0.1', details: { agentId: 'audited', requestedScopes: ['read'] } });
      const approve = (await log('handshake.approve')).find((e) => e.targetId === approvedId);
      expect(approve?.details).toMatchObject({ tokenId: approved.body.data.handshake.tokenId, scopes: ['read'] });
      expect(JSON.stringify(approve)).not.toContain(approved.body.data.token);
      expect((await log('handshake.deny')).some((e) => e.targetId === deniedId)).toBe(true);
      expect((await log('handshake.revoke')).some((e) => e.targetId === approvedId)).toBe(true);
      const family = (await log('handshake.*')).filter((e) => e.targetId === approvedId).map((e) => e.action);
      expect(family.sort()).toEqual(['handshake.approve', 'handshake.create', 'handshake.revoke']);

      // The request for another account lands in that account's log only.
      const forOther = await createHandshake(t, { ownerId: other.id });
      const otherLog = await t.request('GET', '/api/v1/audit/log', { token: other.token, query: { action: 'handshake.create' } });
      expect(otherLog.body.data.some((e: { targetId: string }) => e.targetId === forOther)).toBe(true);
      expect((await log('handshake.create')).some((e) => e.targetId === forOther)).toBe(false);
    });
  });
});

describe('rate limit', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ config: { handshakeRateLimitPerMinute: 2 } });
    await limited.createOwner();
  });
  afterAll(async () => limited.close());

  it('limits creation per address with 429 and Retry-After', async () => {
    const id = await createHandshake(limited);
    await createHandshake(limited);
    const res = await limited.request('POST', '/api/v1/handshakes', { body: { agentId: 'a', requestedScopes: ['read'], message: 'm' } });
    const error = expectError(res, 429, 'RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(error.details).toMatchObject({ retryAfterSeconds: expect.any(Number) });

    // Polling is counted apart from creating.
    expect((await limited.request('GET', `/api/v1/handshakes/${id}/status`)).status).toBe(200);
    expect((await limited.request('GET', `/api/v1/handshakes/${id}/status`)).status).toBe(200);
    const polled = await limited.request('GET', `/api/v1/handshakes/${id}/status`);
    expectError(polled, 429, 'RATE_LIMITED');
    expect(polled.headers['retry-after']).toBeDefined();
  });
});

describe('expiry', () => {
  let short: TestApp;
  let owner: Owner;
  beforeAll(async () => {
    short = await createTestApp({ config: { handshakeTtlMs: 1 } });
  });
  afterAll(async () => short.close());

  it('answers 404 while the server has no account to ask', async () => {
    const res = await short.request('POST', '/api/v1/handshakes', { body: { agentId: 'a', requestedScopes: ['read'], message: 'm' } });
    expectError(res, 404, 'NOT_FOUND');
  });

  it('reads an undecided handshake past its time as denied, and refuses to decide it', async () => {
    owner = await short.createOwner();
    const id = await createHandshake(short);
    await sleep(5);
    const polled = await short.request('GET', `/api/v1/handshakes/${id}/status`);
    expect(polled.body.data.status).toBe('denied');
    expect(polled.body.data.decidedAt).toBe(polled.body.data.expiresAt);
    const error = expectError(await short.request('POST', `/api/v1/handshakes/${id}/approve`, { token: owner.token }), 409, 'CONFLICT');
    expect(error.message).toContain('expired');
    expectError(await short.request('POST', `/api/v1/handshakes/${id}/deny`, { token: owner.token }), 409, 'CONFLICT');
    expect(await handshakeTokens(short, owner, id)).toHaveLength(0);

    const list = async (status: string) =>
      (await short.request('GET', '/api/v1/handshakes', { token: owner.token, query: { status } })).body.data.map(
        (h: { handshakeId: string }) => h.handshakeId,
      );
    expect(await list('pending')).not.toContain(id);
    expect(await list('denied')).toContain(id);
  });
});
