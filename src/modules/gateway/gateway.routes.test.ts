import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { Value } from '@sinclair/typebox/value';
import { SCOPE_NAMES } from '../../http/access.js';
import { GatewayContextSchema } from './gateway.schemas.js';

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
    expect([...Value.Errors(GatewayContextSchema, masterRes.body)]).toEqual([]);
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
