import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { openApiDocument, startFakeWebsite, type FakeWebsite } from '../../../test/fakes/website.js';

let site: FakeWebsite;
let t: TestApp;
let owner: Owner;
let vaultToken: string;

const discover = (websiteUrl: unknown, token = vaultToken) => t.request('POST', '/api/v1/vault/discover-api', { token, body: { websiteUrl } });

beforeAll(async () => {
  site = await startFakeWebsite();
  t = await createTestApp({ config: { allowPrivateNetwork: true } });
  owner = await t.createOwner();
  vaultToken = await t.tokenWithScopes(owner, ['vault']);
});

afterAll(async () => {
  await t.close();
  await site.close();
});

// Each test starts from the fake's full site.
beforeEach(() => site.reset());

describe('POST /api/v1/vault/discover-api', () => {
  it('finds the OpenAPI document linked as service-desc, llms.txt and the AI plugin manifest', async () => {
    const res = await discover(`${site.origin}/`);
    expect(res.status, res.text).toBe(200);
    const api = res.body.data;
    expect(api).toMatchObject({
      title: 'Acme Widgets API',
      description: 'Create and track widgets.',
      baseUrl: `${site.origin}/v1`,
      operationCount: 4,
    });
    expect(api.documents).toEqual([
      { kind: 'openapi', url: `${site.origin}/docs/openapi.json` },
      { kind: 'ai-plugin', url: `${site.origin}/.well-known/ai-plugin.json` },
      { kind: 'llms', url: `${site.origin}/llms.txt` },
    ]);
    expect(api.authSchemes).toEqual([
      { name: 'bearerAuth', type: 'http', scheme: 'bearer' },
      { name: 'apiKeyAuth', type: 'apiKey', in: 'header', paramName: 'X-API-Key' },
      { name: 'oauth', type: 'oauth2' },
    ]);
    expect(api.operations).toEqual([
      { operationId: 'listWidgets', method: 'GET', path: '/widgets', summary: 'List widgets' },
      { operationId: 'createWidget', method: 'POST', path: '/widgets', summary: 'Create a widget' },
      { operationId: 'getWidget', method: 'GET', path: '/widgets/{widgetId}', summary: 'Get a widget' },
      { operationId: 'delete_widgets_widgetId', method: 'DELETE', path: '/widgets/{widgetId}', summary: 'Delete a widget.' },
    ]);
    // Every fetch was a GET of a known candidate, with a size-appropriate Accept header.
    expect(site.requests.every((r) => r.method === 'GET')).toBe(true);
    expect(site.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/', '/llms.txt', '/.well-known/ai-plugin.json', '/docs/openapi.json', '/openapi.json']));
  });

  it('falls back to the AI plugin manifest, whose api.url is an OpenAPI document in YAML', async () => {
    site.set('/', { type: 'text/html', body: '<html><head><title>No links</title></head></html>' });
    const res = await discover(site.origin);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      title: 'Acme Plugin API',
      baseUrl: `${site.origin}/plugin-api`,
      operationCount: 1,
      operations: [{ operationId: 'searchWidgets', method: 'GET', path: '/search', summary: 'Search widgets' }],
      // The document declares no scheme: the manifest's auth is used.
      authSchemes: [{ name: 'ai-plugin', type: 'http', scheme: 'bearer' }],
    });
    expect(res.body.data.documents[0]).toEqual({ kind: 'openapi', url: `${site.origin}/plugin/openapi.yaml` });
  });

  it('finds a Swagger 2.0 document at a well-known address (host, basePath, securityDefinitions)', async () => {
    site.set('/', { type: 'text/html', body: '<html></html>' });
    site.remove('/.well-known/ai-plugin.json');
    site.remove('/llms.txt');
    site.set('/swagger.json', {
      type: 'application/json',
      body: JSON.stringify({
        swagger: '2.0',
        info: { title: 'Petstore', version: '1.0.0' },
        // The site's own host (a host elsewhere is refused: vault.discovery.base-url.test.ts).
        host: `127.0.0.1:${site.port}`,
        basePath: '/api',
        schemes: ['https'],
        securityDefinitions: { basic: { type: 'basic' }, key: { type: 'apiKey', in: 'query', name: 'api_key' } },
        paths: { '/pets': { get: { operationId: 'listPets', summary: 'List pets' } } },
      }),
    });
    const res = await discover(site.origin);
    expect(res.body.data).toMatchObject({
      title: 'Petstore',
      baseUrl: `https://127.0.0.1:${site.port}/api`,
      documents: [{ kind: 'openapi', url: `${site.origin}/swagger.json` }],
      authSchemes: [
        { name: 'basic', type: 'http', scheme: 'basic' },
        { name: 'key', type: 'apiKey', in: 'query', paramName: 'api_key' },
      ],
      operationCount: 1,
    });
  });

  it('a website address that is itself an OpenAPI document (YAML) is used as such', async () => {
    site.set('/openapi.yaml', { type: 'application/yaml', body: toYaml(openApiDocument(site.origin)) });
    const res = await discover(`${site.origin}/openapi.yaml`);
    expect(res.body.data.documents[0]).toEqual({ kind: 'openapi', url: `${site.origin}/openapi.yaml` });
    expect(res.body.data.operationCount).toBe(4);
  });

  it('security: a large YAML document is parsed off the request thread, which stays free meanwhile', async () => {
    // The yaml package needs about 1 s per MiB on the thread that runs it (and a mapping's
    // duplicate-key check is quadratic: 30,000 paths took 10 s).
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 2_000; i++) {
      const parameters = Array.from({ length: 8 }, (_, k) => ({ name: `p${k}`, in: 'query', description: `Parameter ${k} of thing ${i}` }));
      paths[`/things/${i}`] = { get: { summary: `List thing ${i}`, parameters, responses: { '200': { description: 'The parts' } } } };
    }
    const body = toYaml(openApiDocument(site.origin, paths));
    expect(body.length).toBeGreaterThan(1.5 * 1024 * 1024);
    site.set('/openapi.yaml', { type: 'application/yaml', body });
    // Found at its well-known address (the plugin manifest would name another document first).
    site.remove('/.well-known/ai-plugin.json');
    // The longest gap between ticks of a 10 ms timer: how long this thread was kept from other work.
    let last = performance.now();
    let longestStall = 0;
    let ticked = () => {};
    const ticker = setInterval(() => {
      const now = performance.now();
      longestStall = Math.max(longestStall, now - last);
      last = now;
      ticked();
    }, 10);
    const res = await discover(`${site.origin}/openapi.yaml`);
    // One more tick, so that a stall just before the answer is measured too.
    await new Promise<void>((resolve) => (ticked = resolve));
    clearInterval(ticker);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.documents[0]).toEqual({ kind: 'openapi', url: `${site.origin}/openapi.yaml` });
    expect(res.body.data.operationCount).toBe(2_004);
    // (Parsing the YAML on this thread stalled it for 1.7 s, more on a loaded machine; a bound
    // well above a timer's jitter under load still catches it.)
    expect(longestStall).toBeLessThan(1_500);
  });

  it('lists at most 200 operations and counts them all', async () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 130; i++) paths[`/items${i}`] = { get: { summary: `Get ${i}` }, post: { summary: `Post ${i}` } };
    site.set('/docs/openapi.json', { type: 'application/json', body: JSON.stringify(openApiDocument(site.origin, paths)) });
    const res = await discover(site.origin);
    expect(res.body.data.operationCount).toBe(264);
    expect(res.body.data.operations).toHaveLength(200);
    expect(new Set(res.body.data.operations.map((o: any) => o.operationId)).size).toBe(200);
  });

  it('a site that publishes nothing answers 200 with no documents, the page title and its origin', async () => {
    site.set('/some/page', { type: 'text/html', body: '<html><head><title>Just a page</title><meta name="description" content="Nothing for machines"></head></html>' });
    for (const p of ['/docs/openapi.json', '/llms.txt', '/.well-known/ai-plugin.json']) site.remove(p);
    const res = await discover(`${site.origin}/some/page`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      title: 'Just a page',
      description: 'Nothing for machines',
      baseUrl: site.origin,
      documents: [],
      authSchemes: [],
      operationCount: 0,
      operations: [],
    });
  });

  it('a single-page app answering HTML everywhere is not mistaken for documents', async () => {
    site.set('/', { type: 'text/html', body: '<!doctype html><html><head><title>SPA</title></head><body><div id=app></div></body></html>' });
    site.spaMode(true);
    const res = await discover(site.origin);
    expect(res.body.data).toMatchObject({ title: 'SPA', documents: [], operationCount: 0 });
  });

  it('oversized documents are skipped, not read whole', async () => {
    site.set('/docs/openapi.json', { type: 'application/json', body: `{"openapi":"3.0.0","x":"${'a'.repeat(5 * 1024 * 1024)}"}` });
    const res = await discover(site.origin);
    expect(res.status).toBe(200);
    // The oversized document is skipped; the plugin's document is used instead.
    expect(res.body.data.documents[0]).toEqual({ kind: 'openapi', url: `${site.origin}/plugin/openapi.yaml` });
  });

  it('reads the head with a real attribute parser: any order and case, quoted ">", comments, at most 3 service-desc links', async () => {
    site.set('/', {
      type: 'text/html',
      body: `<!DOCTYPE html><html><HEAD>
        <!-- <title>Not this one</title> <link rel="service-desc" href="/commented.json"> -->
        <script>document.write('<title>Nor this</title>')</script>
        <TITLE>Ordered &amp; Odd</TITLE>
        <META content="Widgets > gadgets" NAME="Description">
        <link href="/docs/openapi.json" rel="alternate service-desc" >
        <link rel=service-desc href=/docs/openapi.json>
        <link rel='service-desc' href='/a.json'><link rel="service-desc" href="/b.json"><link rel="service-desc" href="/c.json">
      </head><body><link rel="service-desc" href="/body.json"></body></html>`,
    });
    site.remove('/.well-known/ai-plugin.json');
    site.remove('/llms.txt');
    site.remove('/openapi.json');
    const res = await discover(site.origin);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.documents[0]).toEqual({ kind: 'openapi', url: `${site.origin}/docs/openapi.json` });
    const fetched = site.requests.map((r) => r.path);
    expect(fetched).toEqual(expect.arrayContaining(['/a.json', '/b.json']));
    for (const path of ['/c.json', '/body.json', '/commented.json']) expect(fetched).not.toContain(path);

    // With no document, the page's own title and description are used.
    site.set('/docs/openapi.json', { status: 404, body: '' });
    const meta = await discover(site.origin);
    expect(meta.body.data).toMatchObject({ title: 'Ordered &amp; Odd', description: 'Widgets > gadgets', documents: [] });
  });

  it('security: hostile pages (unclosed meta, title and link tags) are scanned in linear time', async () => {
    // Each took seconds with the former backtracking regexes (the meta one was cubic).
    const pages = {
      meta: (n: number) => "<meta name='description' ".repeat(700 * n),
      title: (n: number) => '<title'.repeat(20_000 * n),
      link: (n: number) => '<link'.repeat(24_000 * n),
      quotes: (n: number) => '<meta content="'.repeat(8_000 * n),
    };
    const timed = async (body: string) => {
      site.set('/', { type: 'text/html', body });
      const started = performance.now();
      const res = await discover(site.origin);
      expect(res.status).toBe(200);
      return performance.now() - started;
    };
    for (const [what, page] of Object.entries(pages)) {
      const small = await timed(page(1));
      const large = await timed(page(4));
      // Four times the page takes nowhere near sixteen times as long; the floor absorbs the
      // request's own cost and a loaded machine's noise.
      expect(large, what).toBeLessThan(Math.max(small, 100) * 8);
    }
  });

  it('an unreachable site is 502 UPSTREAM_ERROR', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expectError(await discover(`http://127.0.0.1:${port}/`), 502, 'UPSTREAM_ERROR');
  });

  it('validates the body', async () => {
    for (const websiteUrl of [undefined, '', 'not a url', 'ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 42]) {
      expectError(await discover(websiteUrl), 400, 'VALIDATION_ERROR');
    }
    expectError(await t.request('POST', '/api/v1/vault/discover-api', { token: vaultToken, body: { websiteUrl: site.origin, extra: 1 } }), 400, 'VALIDATION_ERROR');
    expect(site.requests).toEqual([]);
  });

  it('security: no token 401, a token without the vault scope 403', async () => {
    expectError(await t.request('POST', '/api/v1/vault/discover-api', { body: { websiteUrl: site.origin } }), 401, 'UNAUTHORIZED');
    const memory = await t.tokenWithScopes(owner, ['memory']);
    expectError(await discover(site.origin, memory), 403, 'INSUFFICIENT_SCOPE');
    expect(site.requests).toEqual([]);
  });
});

describe('discoveries in flight per owner', () => {
  it('security: an owner runs at most 2 discoveries at once; a third answers 429 with Retry-After: 1, and stores nothing', async () => {
    // A site that holds every request until released.
    const held: Array<{ path: string; res: ServerResponse }> = [];
    const slow = createServer((req, res) => void held.push({ path: req.url ?? '/', res }));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    const waitFor = async (paths: string[]) => {
      for (let i = 0; i < 200 && !paths.every((p) => held.some((h) => h.path === p)); i++) await new Promise((r) => setTimeout(r, 10));
    };
    try {
      const first = discover(`${origin}/a`);
      const second = discover(`${origin}/b`);
      await waitFor(['/a', '/b']);

      const third = await discover(`${origin}/c`);
      expect(expectError(third, 429, 'RATE_LIMITED').message).toMatch(/at most 2/);
      expect(third.headers['retry-after']).toBe('1');
      const store = await t.request('POST', '/api/v1/vault/tokens', {
        token: vaultToken,
        body: { name: 'Busy', service: 'busy', token: 'busy-secret-0123456789', websiteUrl: `${origin}/d`, discoverApi: true },
      });
      expectError(store, 429, 'RATE_LIMITED');
      expect((await t.request('GET', '/api/v1/vault/tokens', { token: vaultToken, query: { service: 'busy' } })).body.data).toEqual([]);
      expect(held.some((h) => h.path === '/c' || h.path === '/d')).toBe(false);

      // Another owner is not held back by this one.
      const other = await t.createOwner();
      const theirs = t.request('POST', '/api/v1/vault/discover-api', { token: other.token, body: { websiteUrl: `${origin}/e` } });
      await waitFor(['/e']);

      // Once they end, the owner may discover again.
      const answer = () => {
        for (const { res } of held.splice(0)) res.writeHead(404).end();
      };
      const releasing = setInterval(answer, 5);
      try {
        expect((await first).status).toBe(200);
        expect((await second).status).toBe(200);
        expect((await theirs).status).toBe(200);
        expect((await discover(`${origin}/f`)).status).toBe(200);
      } finally {
        clearInterval(releasing);
      }
    } finally {
      for (const { res } of held.splice(0)) res.destroy();
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });
});

describe('storing a token with discoverApi: true', () => {
  it('keeps the discovered API with the token, and offers it as a service', async () => {
    const res = await t.request('POST', '/api/v1/vault/tokens', {
      token: vaultToken,
      body: { name: 'Acme', service: 'acme', token: 'acme-secret-0123456789', websiteUrl: site.origin, discoverApi: true },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      discoverApi: true,
      api: { status: 'found', title: 'Acme Widgets API', baseUrl: `${site.origin}/v1`, operationCount: 4 },
    });
    expect(res.body.data.api.authSchemes).toHaveLength(3);
    expect(res.body.data.api).not.toHaveProperty('operations');
    expect(res.text).not.toContain('acme-secret');

    const list = await t.request('GET', '/api/v1/vault/tokens', { token: vaultToken, query: { service: 'ACME' } });
    expect(list.body.data[0].api.status).toBe('found');

    const services = await t.container.vault.discoveredServices(owner.id);
    expect(services).toHaveLength(1);
    expect(services[0]).toMatchObject({
      vaultTokenId: res.body.data.id,
      service: 'acme',
      title: 'Acme Widgets API',
      baseUrl: `${site.origin}/v1`,
    });
    expect(services[0]!.operations.map((o) => o.operationId)).toEqual(['listWidgets', 'createWidget', 'getWidget', 'delete_widgets_widgetId']);
    expect((await t.container.vault.secretFor(owner.id, res.body.data.id)).secret).toBe('acme-secret-0123456789');
  });

  it('a site with nothing to discover is stored with status none, and is not a discovered service', async () => {
    site.set('/', { type: 'text/html', body: '<html></html>' });
    for (const p of ['/docs/openapi.json', '/llms.txt', '/.well-known/ai-plugin.json']) site.remove(p);
    const other = await t.createOwner();
    const res = await t.request('POST', '/api/v1/vault/tokens', {
      token: other.token,
      body: { name: 'Plain', service: 'plain', token: 'plain-secret-0123456789', websiteUrl: site.origin, discoverApi: true },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.api).toMatchObject({ status: 'none', documents: [], operationCount: 0 });
    expect(await t.container.vault.discoveredServices(other.id)).toEqual([]);
  });
});

describe('SSRF: with ALLOW_PRIVATE_NETWORK off, discovery refuses private destinations', () => {
  let guarded: TestApp;
  let guardedOwner: Owner;
  let target: FakeWebsite;

  beforeAll(async () => {
    target = await startFakeWebsite();
    guarded = await createTestApp({ config: { allowPrivateNetwork: false } });
    guardedOwner = await guarded.createOwner();
  });
  afterAll(async () => {
    await guarded.close();
    await target.close();
  });

  const refused = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://localhost:${port}/`,
    `http://[::1]:${port}/`,
    'http://10.0.0.1/',
    'http://10.255.255.254:8080/',
    'http://172.16.0.1/',
    'http://172.31.255.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://0.0.0.0:' + port + '/',
    `http://[::ffff:127.0.0.1]:${port}/`,
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f000001/',
  ];

  it('refuses every loopback, private, link-local, CGNAT and unspecified address, fetching nothing', async () => {
    const problems: string[] = [];
    for (const url of refused(target.port)) {
      const res = await guarded.request('POST', '/api/v1/vault/discover-api', { token: guardedOwner.token, body: { websiteUrl: url } });
      const ok = res.status >= 400 && res.status < 500 && res.body?.error === 'VALIDATION_ERROR' && /Refusing to call|not a valid/i.test(res.body?.message);
      if (!ok) problems.push(`${url}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    expect(problems).toEqual([]);
    expect(target.requests).toEqual([]);
  });

  it('storing a token with discoverApi: true for a private address stores it, reports the refusal, fetches nothing', async () => {
    const res = await guarded.request('POST', '/api/v1/vault/tokens', {
      token: guardedOwner.token,
      body: { name: 'internal', service: 'internal', token: 'internal-secret-0123', websiteUrl: `http://127.0.0.1:${target.port}/`, discoverApi: true },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.api).toMatchObject({ status: 'failed' });
    expect(res.body.data.api.error).toMatch(/Refusing to call/);
    expect(target.requests).toEqual([]);
    expect(await guarded.container.vault.discoveredServices(guardedOwner.id)).toEqual([]);
  });

  it('the configured language model origin is not trusted by discovery (only the chat client trusts it)', async () => {
    // A fake at the operator-configured LLM origin, which would redirect into another private
    // address: discovery refuses the LLM origin itself, so it is never asked. (Redirect hops out
    // of a trusted origin are checked in src/http/outbound.test.ts.)
    let hopRequests = 0;
    const hop: Server = createServer((_req, res) => {
      hopRequests += 1;
      res.writeHead(302, { location: `http://localhost:${target.port}/` });
      res.end();
    });
    await new Promise<void>((r) => hop.listen(0, '127.0.0.1', r));
    const hopOrigin = `http://127.0.0.1:${(hop.address() as AddressInfo).port}`;
    const trusting = await createTestApp({
      config: { allowPrivateNetwork: false, llm: { ...guarded.config.llm, baseUrl: hopOrigin } },
    });
    try {
      const who = await trusting.createOwner();
      const res = await trusting.request('POST', '/api/v1/vault/discover-api', { token: who.token, body: { websiteUrl: `${hopOrigin}/` } });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.message).toMatch(/^Refusing to call 127\.0\.0\.1/);
      expect(hopRequests).toBe(0);
      expect(target.requests).toEqual([]);
    } finally {
      await trusting.close();
      await new Promise<void>((r) => hop.close(() => r()));
    }
  });
});
