import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../src/lib/crypto.js';
import { createTestApp, ENGINE, expectError, type ApiResponse, type TestApp } from './harness.js';

/** Runs the usual life of an account and answers every secret it was given, plus its password. */
async function issueSecrets(t: TestApp) {
  const owner = await t.createOwner();
  const session = await t.login(owner);
  const created = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'Agent', scopes: ['memory', 'identity'] } });
  expect(created.status).toBe(201);
  const api = created.body.data.token as string;
  const regenerated = await t.request('POST', `/api/v1/tokens/${created.body.data.id}/regenerate`, { token: session });
  expect(regenerated.status).toBe(200);
  const apiNew = regenerated.body.data.token as string;
  const master = await t.request('POST', '/api/v1/tokens/master/regenerate', { token: session, body: { password: owner.password } });
  expect(master.status).toBe(200);
  const masterNew = master.body.data.token as string;
  // Use each live token once, so that anything written on use is written too.
  for (const token of [session, apiNew, masterNew]) expect((await t.request('GET', '/api/v1/auth/me', { token })).status).toBe(200);
  const tokens = { master: owner.token, masterNew, session, api, apiNew };
  for (const secret of Object.values(tokens)) expect(secret).toMatch(/^hth_(mst|ses|pat)_[0-9A-Za-z]{38}$/);
  return { owner, tokens, password: owner.password };
}

/** The needles a leak would show: each whole secret, its random part, and the password. */
function needles(tokens: Record<string, string>, password: string): string[] {
  return [...Object.values(tokens).flatMap((secret) => [secret, secret.slice(8, 40)]), password];
}

describe('secrets at rest', () => {
  it.skipIf(ENGINE === 'postgres')(
    'the SQLite database files hold no token secret and no password (skipped on PostgreSQL: its files belong to the server; the next test checks its tables)',
    async () => {
      const t = await createTestApp();
      try {
        const { owner, tokens, password } = await issueSecrets(t);
        const files = ['hearth.db', 'hearth.db-wal'].map((name) => path.join(t.config.dataDir, name)).filter((file) => existsSync(file));
        expect(files).toContain(path.join(t.config.dataDir, 'hearth.db'));
        const bytes = Buffer.concat(files.map((file) => readFileSync(file)));
        expect(bytes.length).toBeGreaterThan(4096);

        // The check can see plain data: the email and the stored hashes are there.
        expect(bytes.includes(Buffer.from(owner.email))).toBe(true);
        expect(bytes.includes(Buffer.from(hashToken(tokens.apiNew)))).toBe(true);

        for (const needle of needles(tokens, password)) {
          expect(bytes.includes(Buffer.from(needle)), `database file contains ${needle.slice(0, 12)}…`).toBe(false);
        }
      } finally {
        await t.close();
      }
    },
  );

  it('no column of the users, tokens or audit tables holds a token secret or a password', async () => {
    const t = await createTestApp();
    try {
      const { owner, tokens, password } = await issueSecrets(t);
      const users = await t.storage.db.selectFrom('users').selectAll().execute();
      const tokenRows = await t.storage.db.selectFrom('tokens').selectAll().where('owner_id', '=', owner.id).execute();
      const audit = await t.storage.db.selectFrom('audit_log').selectAll().execute();
      expect(tokenRows.map((row) => row.kind).sort()).toEqual(['api', 'master', 'session']);
      const dump = JSON.stringify({ users, tokenRows, audit });
      expect(dump).toContain(owner.email);
      for (const needle of needles(tokens, password)) expect(dump).not.toContain(needle);

      // Only hashes are stored, and the current ones match the live secrets.
      const byKind = Object.fromEntries(tokenRows.map((row) => [row.kind, row]));
      expect(byKind.master!.secret_hash).toBe(hashToken(tokens.masterNew));
      expect(byKind.api!.secret_hash).toBe(hashToken(tokens.apiNew));
      expect(byKind.session!.secret_hash).toBe(hashToken(tokens.session));
      const user = users.find((u) => u.id === owner.id)!;
      expect(user.password_hash).toMatch(/^scrypt\$/);
    } finally {
      await t.close();
    }
  });
});

describe('secrets in logs', () => {
  it('no log line holds a token secret or a password; lines carry the request id and a redacted url', async () => {
    const lines: string[] = [];
    const logStream = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(...String(chunk).split('\n').filter((line) => line.length > 0));
        callback();
      },
    });
    const t = await createTestApp({ logStream });
    try {
      const { owner, tokens, password } = await issueSecrets(t);
      const requestIds: string[] = [];
      const record = (res: ApiResponse) => {
        requestIds.push(String(res.headers['x-request-id']));
        return res;
      };

      const viaQuery = record(await t.request('GET', `/api/v1/auth/me?token=${tokens.apiNew}`));
      expect(viaQuery.status).toBe(200);
      const viaQuery2 = record(await t.request('GET', `/api/v1/tokens?limit=1&token=${tokens.masterNew}&kind=master`));
      expect(viaQuery2.status).toBe(200);
      const viaHeader = record(await t.request('GET', '/api/v1/tokens', { token: tokens.masterNew }));
      expect(viaHeader.status).toBe(200);
      const revoked = record(await t.request('GET', '/api/v1/auth/me', { token: tokens.api }));
      expect(revoked.status).toBe(401);
      const unknownRoute = record(await t.request('GET', `/api/v1/nowhere?token=${tokens.session}`));
      expect(unknownRoute.status).toBe(404);
      const login = record(await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password } }));
      expect(login.status).toBe(200);
      const wrongLogin = record(await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: `${password}-typo` } }));
      expect(wrongLogin.status).toBe(401);
      const badJson = record(
        await t.request('POST', '/api/v1/auth/login', {
          body: `{"email":"${owner.email}","password":"${password}"`,
          headers: { 'content-type': 'application/json' },
        }),
      );
      expect(badJson.status).toBe(400);

      // A failure inside the server is logged with its error; still no secret.
      const broken = await t.request('POST', '/api/v1/tokens', { token: tokens.masterNew, body: { name: 'broken', scopes: ['identity'] } });
      await t.storage.db.updateTable('tokens').set({ scopes: 'not json' }).where('id', '=', broken.body.data.id).execute();
      const failed = record(await t.request('GET', `/api/v1/auth/me?token=${broken.body.data.token}`));
      expect(failed.status).toBe(500);

      const last = requestIds.at(-1)!;
      await expect.poll(() => lines.some((line) => line.includes(last) && line.includes('request completed')), { timeout: 2000 }).toBe(true);

      const allNeedles = [...needles({ ...tokens, broken: broken.body.data.token }, password), `${password}-typo`];
      for (const line of lines) {
        for (const needle of allNeedles) expect(line, `log line leaks ${needle.slice(0, 12)}…`).not.toContain(needle);
      }

      const parsed = lines.map((line) => JSON.parse(line) as { reqId?: string; req?: { url?: string }; level: number; err?: unknown });
      for (const id of requestIds) expect(parsed.some((entry) => entry.reqId === id), `no log line for ${id}`).toBe(true);
      const urls = parsed.map((entry) => entry.req?.url).filter((url): url is string => typeof url === 'string');
      expect(urls).toContain('/api/v1/auth/me?token=[REDACTED]');
      expect(urls).toContain('/api/v1/tokens?limit=1&token=[REDACTED]&kind=master');
      expect(urls).toContain('/api/v1/nowhere?token=[REDACTED]');
      expect(parsed.some((entry) => entry.reqId === last && entry.level >= 50 && entry.err)).toBe(true);
      expect(lines.join('\n')).not.toMatch(/authorization/i);
    } finally {
      await t.close();
    }
  });
});

describe('per-token rate limit', () => {
  it('when configured, the request over the limit answers 429 RATE_LIMITED with Retry-After; other tokens are counted apart', async () => {
    const t = await createTestApp({ config: { tokenRateLimitPerMinute: 3 } });
    try {
      const owner = await t.createOwner();
      const session = await t.login(owner);
      for (let i = 0; i < 3; i++) expect((await t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(200);
      const limited = await t.request('GET', '/api/v1/auth/me', { token: owner.token });
      const body = expectError(limited, 429, 'RATE_LIMITED');
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(body.message).toMatch(/try again/i);
      expect(limited.headers['x-request-id']).toMatch(/^req_/);
      // Every route counts, the ?token= form too.
      expectError(await t.request('GET', '/api/v1/tokens', { query: { token: owner.token } }), 429, 'RATE_LIMITED');

      // The session is a different token with its own count.
      for (let i = 0; i < 3; i++) expect((await t.request('GET', '/api/v1/auth/me', { token: session })).status).toBe(200);
      expectError(await t.request('GET', '/api/v1/auth/me', { token: session }), 429, 'RATE_LIMITED');
    } finally {
      await t.close();
    }
  });

  it('is off by default', async () => {
    const t = await createTestApp();
    try {
      expect(t.config.tokenRateLimitPerMinute).toBe(0);
      const owner = await t.createOwner();
      const statuses = await Promise.all(Array.from({ length: 60 }, () => t.request('GET', '/api/v1/auth/me', { token: owner.token })));
      expect(statuses.every((res) => res.status === 200)).toBe(true);
    } finally {
      await t.close();
    }
  });
});
