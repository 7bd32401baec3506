import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import type { OutboundRequest, OutboundResponse } from '../../http/outbound.js';
import { createClientDirectory, redirectUriProblem } from './authorization.clients.js';
import { OAuthProtocolError } from './authorization.errors.js';
import { createAuthorizationRepo } from './authorization.repo.js';

/**
 * Client metadata documents live at https addresses, which a test cannot serve with a trusted
 * certificate; the directory is given an outbound client that answers as a website would, and
 * stores what it learns in the real database.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

function website(documents: Record<string, { status?: number; body: string }>) {
  const fetched: string[] = [];
  return {
    fetched,
    async request(request: OutboundRequest): Promise<OutboundResponse> {
      fetched.push(request.url);
      expect(request.followRedirects).toBe(false);
      expect(request.maxResponseBytes).toBeLessThanOrEqual(64 * 1024);
      const page = documents[request.url];
      if (!page) throw new Error(`${request.url} refused the connection`);
      const body = Buffer.from(page.body);
      return { status: page.status ?? 200, headers: {}, url: request.url, body, text: () => body.toString('utf8'), json: <T>() => JSON.parse(body.toString('utf8')) as T };
    },
  };
}

const URL_ID = 'https://app.example/oauth/client.json';

describe('client metadata documents', () => {
  it('accepts a document that names itself, stores it and uses the stored copy for an hour', async () => {
    const site = website({
      [URL_ID]: { body: JSON.stringify({ client_id: URL_ID, client_name: 'Example App', redirect_uris: ['https://app.example/callback'], token_endpoint_auth_method: 'none' }) },
    });
    const directory = createClientDirectory({ repo: createAuthorizationRepo(t.storage.db), outbound: site });
    const client = await directory.resolve(URL_ID);
    expect(client).toMatchObject({ id: URL_ID, kind: 'metadata_document', name: 'Example App', auth_method: 'none' });
    expect(JSON.parse(client!.redirect_uris)).toEqual(['https://app.example/callback']);
    await directory.resolve(URL_ID);
    expect(site.fetched).toEqual([URL_ID]);
  });

  it.each([
    ['names another client', 'https://app.example/wrong.json', { client_id: 'https://other.example/client.json', redirect_uris: ['https://app.example/cb'] }, /must name itself/],
    ['asks for a client secret', 'https://app.example/secret.json', { client_id: 'https://app.example/secret.json', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'client_secret_basic' }, /PKCE only/],
    ['has a dangerous redirect', 'https://app.example/js.json', { client_id: 'https://app.example/js.json', redirect_uris: ['javascript:alert(1)'], token_endpoint_auth_method: 'none' }, /javascript/],
  ])('refuses a document that %s', async (_what, address, document, message) => {
    const directory = createClientDirectory({ repo: createAuthorizationRepo(t.storage.db), outbound: website({ [address]: { body: JSON.stringify(document) } }) });
    const refused = await directory.resolve(address).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OAuthProtocolError);
    expect((refused as OAuthProtocolError).description).toMatch(message);
  });

  it('refuses what is not a document: an error status, not JSON, an unreachable site', async () => {
    const site = website({ 'https://app.example/404.json': { status: 404, body: 'no' }, 'https://app.example/html.json': { body: '<html>' } });
    const directory = createClientDirectory({ repo: createAuthorizationRepo(t.storage.db), outbound: site });
    await expect(directory.resolve('https://app.example/404.json')).rejects.toThrow(/answered 404/);
    await expect(directory.resolve('https://app.example/html.json')).rejects.toThrow(/not JSON/);
    await expect(directory.resolve('https://app.example/gone.json')).rejects.toThrow(/could not be fetched/);
  });
});

describe('redirect URIs', () => {
  it.each([
    ['https://app.example/cb', null],
    ['http://127.0.0.1:8765/cb', null],
    ['http://localhost/cb', null],
    ['cursor://anysphere.cursor-retrieval/oauth/callback', null],
    ['http://app.example/cb', /plain http/],
    ['https://app.example/cb#frag', /fragment/],
    ['data:text/html,hi', /data:/],
    ['file:///etc/passwd', /file:/],
    ['not a uri', /not an absolute URI/],
  ])('%s', (uri, problem) => {
    const found = redirectUriProblem(uri);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });
});
