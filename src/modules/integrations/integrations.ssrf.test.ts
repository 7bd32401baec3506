/**
 * With ALLOW_PRIVATE_NETWORK off (the default), no call through execute, proxy or the
 * pass-through reaches a loopback, private, link-local, CGNAT or unspecified address, in any
 * spelling. The fake listens on 127.0.0.1 and must receive nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../../../test/fakes/upstream.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

let t: TestApp;
let fake: FakeUpstream;
let owner: Owner;
let vaultTokenId: string;

const HOSTS = [
  '127.0.0.1',
  'localhost',
  '[::1]',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.0.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '[::ffff:127.0.0.1]',
  '[fd00::1]',
  '[fe80::1]',
];

const nameOf = (host: string) => `ssrf-${host.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;

beforeAll(async () => {
  fake = await startFakeUpstream();
  t = await createTestApp({ config: { allowPrivateNetwork: false } });
  expect(t.config.allowPrivateNetwork).toBe(false);
  owner = await t.createOwner('SSRF Owner');
  const stored = await t.request('POST', '/api/v1/vault/tokens', {
    token: owner.token,
    body: { name: 'key', service: 'internal', token: 'internal-secret-77aa', websiteUrl: 'https://internal.example' },
  });
  vaultTokenId = stored.body.data.id;
  for (const host of HOSTS) {
    // Creating is allowed: a name's address can change after creation, so the refusal is at call time.
    const res = await t.request('POST', '/api/v1/connectors', {
      token: owner.token,
      body: { name: nameOf(host), baseUrl: `http://${host}:${fake.port}`, authType: 'bearer', vaultTokenId },
    });
    expect(res.status, host).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('refused destinations', () => {
  it.each(HOSTS)('proxy to %s is refused in the error shape', async (host) => {
    const res = await t.request('POST', `/api/v1/services/${nameOf(host)}/proxy`, { token: owner.token, body: { method: 'GET', path: '/echo' } });
    const error = expectError(res, 400, 'VALIDATION_ERROR');
    expect(error.message).toMatch(/^Refusing to call .+ loopback, private, link-local or reserved address/);
    expect(res.text).not.toContain('internal-secret-77aa');
    expect(fake.requests).toHaveLength(0);
  });

  it.each(HOSTS)('execute and the pass-through to %s are refused too', async (host) => {
    const name = nameOf(host);
    expectError(
      await t.request('POST', `/api/v1/services/${name}/execute`, { token: owner.token, body: { method: 'request', params: { httpMethod: 'POST', path: '/echo', body: {} } } }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await t.request('GET', `/api/v1/services/${name}/echo?x=1`, { token: owner.token }), 400, 'VALIDATION_ERROR');
    expect(fake.requests).toHaveLength(0);
  });

  it('records the refusals in the audit log as failures', async () => {
    const log = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { limit: 200 } });
    const refusals = log.body.data.filter((e: { action: string; outcome: string }) => e.action === 'service.call' && e.outcome === 'failure');
    expect(refusals.length).toBeGreaterThanOrEqual(HOSTS.length);
    expect(refusals[0].details).toMatchObject({ error: 'VALIDATION_ERROR' });
  });
});
