/**
 * A discovered API's base address comes from a remote document (servers[0].url, a Swagger
 * host); the vault secret goes there. Discovery keeps it only on the website's own site (its
 * host or a subdomain, not a cleartext downgrade, its port when it names one), and the services
 * engine checks the same rule again before it attaches the secret.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openApiDocument, startFakeWebsite, type FakeWebsite } from '../../../test/fakes/website.js';
import { startFakeUpstream, type FakeUpstream } from '../../../test/fakes/upstream.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

let site: FakeWebsite;
let upstream: FakeUpstream;
let t: TestApp;
let owner: Owner;

const SECRET = 'site-secret-5b2e9d41c0';

beforeAll(async () => {
  site = await startFakeWebsite();
  upstream = await startFakeUpstream();
  t = await createTestApp({ config: { allowPrivateNetwork: true } });
  owner = await t.createOwner('Base URL Owner');
});
afterAll(async () => {
  await t?.close();
  await site?.close();
  await upstream?.close();
});
beforeEach(() => {
  site.reset();
  upstream.requests.length = 0;
});

/** The site's OpenAPI document (linked as service-desc from its page), naming `serverUrl` as the API's address. */
function serveDocumentNaming(serverUrl: string): void {
  const doc = { ...openApiDocument(site.origin), servers: [{ url: serverUrl }] };
  site.set('/docs/openapi.json', { type: 'application/json', body: JSON.stringify(doc) });
}

const discover = (websiteUrl: string) => t.request('POST', '/api/v1/vault/discover-api', { token: owner.token, body: { websiteUrl } });

describe('discovery keeps a base address only on the website’s own site', () => {
  it('a servers[0].url on another host falls back to the website origin, and says why', async () => {
    serveDocumentNaming('https://collector.evil.example/v1');
    const res = await discover(`${site.origin}/`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.baseUrl).toBe(site.origin);
    expect(res.body.data.baseUrlRejected).toBe('https://collector.evil.example/v1');
    expect(res.body.data.operationCount).toBe(4);
  });

  it('a servers[0].url on another origin of the same address (another port) is refused too', async () => {
    serveDocumentNaming(`${upstream.url}/api`);
    const res = await discover(`${site.origin}/`);
    expect(res.body.data).toMatchObject({ baseUrl: site.origin, baseUrlRejected: `${upstream.url}/api` });
  });

  it('a Swagger 2.0 host elsewhere is refused', async () => {
    site.set('/', { type: 'text/html', body: '<html></html>' });
    site.remove('/.well-known/ai-plugin.json');
    site.set('/swagger.json', {
      type: 'application/json',
      body: JSON.stringify({ swagger: '2.0', info: { title: 'Petstore', version: '1' }, host: 'petstore.evil.example', basePath: '/api', schemes: ['https'], paths: {} }),
    });
    const res = await discover(site.origin);
    expect(res.body.data).toMatchObject({ title: 'Petstore', baseUrl: site.origin, baseUrlRejected: 'https://petstore.evil.example/api' });
  });

  it('a base address on the site itself is kept, with nothing rejected', async () => {
    serveDocumentNaming(`${site.origin}/api/v2`);
    const res = await discover(`${site.origin}/`);
    expect(res.body.data.baseUrl).toBe(`${site.origin}/api/v2`);
    expect(res.body.data).not.toHaveProperty('baseUrlRejected');
  });

  it('a stored token is never sent to the origin a remote document names', async () => {
    serveDocumentNaming(`${upstream.url}/api`);
    const stored = await t.request('POST', '/api/v1/vault/tokens', {
      token: owner.token,
      body: { name: 'acme key', service: 'acme-elsewhere', token: SECRET, websiteUrl: `${site.origin}/`, discoverApi: true },
    });
    expect(stored.status, stored.text).toBe(201);
    expect(stored.body.data.api).toMatchObject({ status: 'found', baseUrl: site.origin, baseUrlRejected: `${upstream.url}/api` });
    const res = await t.request('POST', '/api/v1/services/acme-elsewhere/proxy', { token: owner.token, body: { method: 'GET', path: '/widgets' } });
    expect(res.status, res.text).toBe(200);
    // The call went to the website (which has no /widgets), not to the named origin.
    expect(res.body.data.status).toBe(404);
    expect(site.requests.map((r) => r.path)).toContain('/widgets');
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('the integrations engine re-checks a stored base address before it attaches the secret', () => {
  it('metadata stored before the rule (a foreign baseUrl) gets no secret and no call', async () => {
    const stored = await t.request('POST', '/api/v1/vault/tokens', {
      token: owner.token,
      body: { name: 'legacy key', service: 'acme-legacy', token: SECRET, websiteUrl: `${site.origin}/`, discoverApi: true },
    });
    expect(stored.status, stored.text).toBe(201);
    const id = stored.body.data.id as string;
    // As an older version stored it: the document's foreign server kept as the base address.
    const row = await t.storage.db.selectFrom('vault_tokens').select('api_metadata').where('id', '=', id).executeTakeFirstOrThrow();
    const meta = JSON.parse(row.api_metadata!);
    meta.api.baseUrl = `${upstream.url}/api`;
    await t.storage.db.updateTable('vault_tokens').set({ api_metadata: JSON.stringify(meta) }).where('id', '=', id).execute();

    const proxied = await t.request('POST', '/api/v1/services/acme-legacy/proxy', { token: owner.token, body: { method: 'GET', path: '/secure/widgets' } });
    expect(expectError(proxied, 403, 'FORBIDDEN').message).toMatch(/is not sent there/);
    const executed = await t.request('POST', '/api/v1/services/acme-legacy/execute', { token: owner.token, body: { method: 'listWidgets', params: {} } });
    expectError(executed, 403, 'FORBIDDEN');
    expect(proxied.text + executed.text).not.toContain(SECRET);
    expect(upstream.requests).toHaveLength(0);
  });
});
