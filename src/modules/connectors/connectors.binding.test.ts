/**
 * Binding a stored vault secret to an address off the site it was stored for: the master token
 * may; a login session only with the account password (counted like a login); a scoped token
 * never. Every such binding and refusal is audited, and the proxy delivers only what was bound
 * legitimately. The fake upstream (http://127.0.0.1:…) is off the tokens' site (https://example.com).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../../../test/fakes/upstream.js';
import { freezeDate, fromAddress, loginFrom, newAddress } from '../../../test/clients.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

let t: TestApp;
let fake: FakeUpstream;

beforeAll(async () => {
  fake = await startFakeUpstream();
  t = await createTestApp({ config: { allowPrivateNetwork: true, trustProxy: true } });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  // The clock stands still, so a wait of 1 s cannot run out between two requests.
  return freezeDate();
});

let counter = 0;
const uniqueName = () => `bind-${++counter}`;

async function storeToken(owner: Owner, secret: string, websiteUrl = 'https://example.com'): Promise<string> {
  const res = await t.request('POST', '/api/v1/vault/tokens', {
    token: owner.token,
    body: { name: 'key', service: `svc-${++counter}`, token: secret, websiteUrl },
  });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function sessionFrom(owner: Owner, address: string): Promise<string> {
  const res = await loginFrom(t, owner, address);
  expect(res.status).toBe(200);
  return res.body.data.token;
}

const createConnector = (token: string, body: Record<string, unknown>, address = '192.0.2.1') =>
  t.request('POST', '/api/v1/connectors', { token, body, headers: fromAddress(address) });
const updateConnector = (token: string, id: string, body: Record<string, unknown>, address = '192.0.2.1') =>
  t.request('PUT', `/api/v1/connectors/${id}`, { token, body, headers: fromAddress(address) });
const proxy = (token: string, name: string) => t.request('POST', `/api/v1/services/${name}/proxy`, { token, body: { method: 'GET', path: '/echo' } });

async function audit(owner: Owner, action: string) {
  const res = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action, limit: 200 } });
  expect(res.status).toBe(200);
  return res.body.data as Array<{ outcome: string; targetId: string | null; tokenId: string | null; details: Record<string, unknown> | null }>;
}

describe('creating a connector off the vault token site', () => {
  let owner: Owner;
  const secret = 'bound-secret-71f0c2a9d4';
  let vaultTokenId: string;

  beforeAll(async () => {
    owner = await t.createOwner('Binder');
    vaultTokenId = await storeToken(owner, secret);
  });

  it('a login session without the password: 403 FORBIDDEN saying what to send, audited; nothing is created or delivered', async () => {
    const address = newAddress();
    const session = await sessionFrom(owner, address);
    const name = uniqueName();
    const res = await createConnector(session, { name, baseUrl: fake.url, authType: 'bearer', vaultTokenId }, address);
    const error = expectError(res, 403, 'FORBIDDEN');
    expect(error.message).toMatch(/password/);
    expect(error.message).toContain(vaultTokenId);

    expectError(await proxy(owner.token, name), 404, 'NOT_FOUND');
    expect(fake.requests).toHaveLength(0);
    const denied = (await audit(owner, 'connector.bind')).filter((e) => e.outcome === 'denied' && e.details?.reason === 'no password');
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ targetId: vaultTokenId, details: { baseUrl: fake.url, websiteUrl: 'https://example.com', tokenKind: 'session' } });
  });

  it('a login session with a wrong password: 403, audited, and counted like a failed login', async () => {
    const address = newAddress();
    const session = await sessionFrom(owner, address);
    const name = uniqueName();
    for (let i = 0; i < 5; i++) {
      const res = await createConnector(session, { name, baseUrl: fake.url, authType: 'bearer', vaultTokenId, password: `wrong-${i}-password` }, address);
      expect(expectError(res, 403, 'FORBIDDEN').message).toMatch(/password is wrong/);
    }
    // Five wrong passwords from this address: now even the right one waits, and so does login.
    const limited = await createConnector(session, { name, baseUrl: fake.url, authType: 'bearer', vaultTokenId, password: owner.password }, address);
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expectError(
      await loginFrom(t, owner, address),
      429,
      'RATE_LIMITED',
    );

    expectError(await proxy(owner.token, name), 404, 'NOT_FOUND');
    expect(fake.requests).toHaveLength(0);
    const denied = (await audit(owner, 'connector.bind')).filter((e) => e.outcome === 'denied');
    expect(denied.filter((e) => e.details?.reason === 'wrong password')).toHaveLength(5);
    expect(denied.filter((e) => e.details?.reason === 'too many failed password attempts')).toHaveLength(1);
    const checks = await audit(owner, 'auth.confirm_password');
    expect(checks.filter((e) => e.outcome === 'failure')).toHaveLength(5);
  });

  it('parallel wrong passwords are held back before they are checked', async () => {
    const address = newAddress();
    const session = await sessionFrom(owner, address);
    const batch = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        createConnector(session, { name: uniqueName(), baseUrl: fake.url, authType: 'bearer', vaultTokenId, password: `parallel-${i}-wrong` }, address),
      ),
    );
    expect(batch.map((r) => r.status).sort()).toEqual([...Array<number>(5).fill(403), ...Array<number>(7).fill(429)]);
  });

  it('a login session with the password: 201, the binding audited; the proxy then delivers the secret there', async () => {
    const address = newAddress();
    const session = await sessionFrom(owner, address);
    const name = uniqueName();
    const res = await createConnector(session, { name, baseUrl: fake.url, authType: 'bearer', vaultTokenId, password: owner.password }, address);
    expect(res.status).toBe(201);
    expect(res.body.data).not.toHaveProperty('password');

    const bound = (await audit(owner, 'connector.bind')).filter((e) => e.outcome === 'success' && e.details?.connectorId === res.body.data.id);
    expect(bound).toHaveLength(1);
    expect(bound[0]).toMatchObject({
      targetId: vaultTokenId,
      details: { connectorName: name, baseUrl: fake.url, websiteUrl: 'https://example.com', tokenKind: 'session', proof: 'account password' },
    });

    const called = await proxy(owner.token, name);
    expect(called.status).toBe(200);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${secret}`);

    // The password never reaches the audit log.
    const log = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { limit: 200 } });
    expect(log.text).not.toContain(owner.password);
    expect(log.text).not.toContain(secret);
  });

  it('the master token: 201 without a password, audited', async () => {
    const name = uniqueName();
    const res = await createConnector(owner.token, { name, baseUrl: fake.url, authType: 'header', headerName: 'X-Key', vaultTokenId });
    expect(res.status).toBe(201);
    const bound = (await audit(owner, 'connector.bind')).filter((e) => e.details?.connectorId === res.body.data.id);
    expect(bound).toEqual([expect.objectContaining({ outcome: 'success', targetId: vaultTokenId, details: expect.objectContaining({ tokenKind: 'master', proof: 'master token' }) })]);
    expect((await proxy(owner.token, name)).status).toBe(200);
    expect(fake.requests[0]!.headers['x-key']).toBe(secret);
  });

  it('a scoped token is still refused off the site, password or not, and the refusal is audited', async () => {
    const writer = await t.tokenWithScopes(owner, ['services:write', 'services:read']);
    const name = uniqueName();
    const checksBefore = (await audit(owner, 'auth.confirm_password')).length;
    for (const extra of [{}, { password: owner.password }]) {
      const error = expectError(await createConnector(writer, { name, baseUrl: fake.url, authType: 'bearer', vaultTokenId, ...extra }), 403, 'FORBIDDEN');
      expect(error.message).toMatch(/only the owner/);
    }
    expectError(await proxy(writer, name), 404, 'NOT_FOUND');
    expect(fake.requests).toHaveLength(0);
    const denied = (await audit(owner, 'connector.bind')).filter((e) => e.details?.reason === 'scoped token');
    expect(denied).toHaveLength(2);
    expect(denied.every((e) => e.outcome === 'denied' && e.details?.tokenKind === 'api')).toBe(true);
    // The password it sent was not even checked.
    expect(await audit(owner, 'auth.confirm_password')).toHaveLength(checksBefore);
  });

  it('on the token site a login session needs no password and nothing is audited as a binding', async () => {
    const session = await sessionFrom(owner, newAddress());
    const res = await createConnector(session, { name: uniqueName(), baseUrl: 'https://api.example.com', authType: 'bearer', vaultTokenId });
    expect(res.status).toBe(201);
    expect((await audit(owner, 'connector.bind')).some((e) => e.details?.connectorId === res.body.data.id)).toBe(false);
  });
});

describe('changing a connector so that it sends a secret off its site', () => {
  let owner: Owner;
  let onSite: string;
  let elsewhere: string;
  const secret = 'moved-secret-5be19c0e73';

  beforeAll(async () => {
    owner = await t.createOwner('Mover');
    onSite = await storeToken(owner, secret);
    elsewhere = await storeToken(owner, 'other-secret-0d4e8a21f6', `${fake.url}/`);
  });

  it('moving baseUrl from a login session needs the password; without it nothing changes and nothing is delivered', async () => {
    const address = newAddress();
    const session = await sessionFrom(owner, address);
    const created = await createConnector(session, { name: uniqueName(), baseUrl: 'https://api.example.com', authType: 'bearer', vaultTokenId: onSite }, address);
    expect(created.status).toBe(201);
    const { id, name } = created.body.data;

    expect(expectError(await updateConnector(session, id, { baseUrl: fake.url }, address), 403, 'FORBIDDEN').message).toMatch(/password/);
    expectError(await updateConnector(session, id, { baseUrl: fake.url, password: 'not-the-password' }, address), 403, 'FORBIDDEN');
    const unchanged = await t.request('GET', `/api/v1/connectors/${id}`, { token: owner.token });
    expect(unchanged.body.data.baseUrl).toBe('https://api.example.com');
    expect(fake.requests).toHaveLength(0);

    const moved = await updateConnector(session, id, { baseUrl: fake.url, password: owner.password }, address);
    expect(moved.status).toBe(200);
    expect(moved.body.data.baseUrl).toBe(fake.url);
    const binds = (await audit(owner, 'connector.bind')).filter((e) => e.details?.connectorId === id || e.details?.baseUrl === fake.url);
    expect(binds.map((e) => `${e.outcome}:${String(e.details?.reason ?? e.details?.proof)}`).sort()).toEqual(
      ['denied:no password', 'denied:wrong password', 'success:account password'].sort(),
    );
    const updates = await audit(owner, 'connector.update');
    expect(updates[0]!.details?.changed).toEqual(['baseUrl']);

    expect((await proxy(owner.token, name)).status).toBe(200);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${secret}`);
  });

  it('putting another vault token on a connector that points off that token site needs the password too', async () => {
    const address = newAddress();
    const session = await sessionFrom(owner, address);
    // On the fake's own site, the token stored for it binds freely.
    const created = await createConnector(session, { name: uniqueName(), baseUrl: fake.url, authType: 'bearer', vaultTokenId: elsewhere }, address);
    expect(created.status).toBe(201);
    const { id, name } = created.body.data;
    expectError(await updateConnector(session, id, { vaultTokenId: onSite }, address), 403, 'FORBIDDEN');
    expect((await proxy(owner.token, name)).status).toBe(200);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer other-secret-0d4e8a21f6');
    // The master token may.
    expect((await updateConnector(owner.token, id, { vaultTokenId: onSite })).status).toBe(200);
  });

  it('a password alone is not a change (400); renaming needs none', async () => {
    const created = await createConnector(owner.token, { name: uniqueName(), baseUrl: fake.url, authType: 'bearer', vaultTokenId: onSite });
    const session = await sessionFrom(owner, newAddress());
    expectError(await updateConnector(session, created.body.data.id, { password: owner.password }), 400, 'VALIDATION_ERROR');
    expect((await updateConnector(session, created.body.data.id, { name: uniqueName() })).status).toBe(200);
  });
});

describe('documentation', () => {
  it('the password field is in the OpenAPI document for create and update', async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: Record<string, { description?: string }> } }> } }>>;
    for (const [path, method] of [
      ['/api/v1/connectors', 'post'],
      ['/api/v1/connectors/{id}', 'put'],
    ] as const) {
      const password = paths[path]![method]!.requestBody!.content['application/json']!.schema.properties.password;
      expect(password?.description, `${method} ${path}`).toMatch(/login session/);
    }
  });
});
