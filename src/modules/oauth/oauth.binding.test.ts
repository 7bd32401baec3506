/**
 * A connect flow is bound to the browser of the owner who signed in to start it. A victim who
 * opens an attacker's consent link cannot connect their Google account to the attacker's Hearth:
 * the connect page asks for the Hearth account's password, and the callback is refused in any
 * browser without the flow's cookie, without spending the flow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserConsent, type FakeGoogle } from '../../../test/fakes/google.js';
import { closeGoogleApp, GOOGLE_CLIENT_ID as CLIENT_ID, GOOGLE_CLIENT_SECRET as CLIENT_SECRET, startGoogleApp } from '../../../test/google-app.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

let fake: FakeGoogle;
let t: TestApp;

beforeAll(async () => {
  ({ fake, t } = await startGoogleApp());
});
afterAll(async () => closeGoogleApp({ fake, t }));

async function connected(owner: Owner): Promise<boolean> {
  const res = await t.request('GET', '/api/v1/oauth/status', { token: owner.token });
  return res.body.data.find((p: { provider: string }) => p.provider === 'google').connected;
}

async function connectUrl(owner: Owner): Promise<URL> {
  const res = await t.request('GET', '/api/v1/oauth/authorize/google', { token: owner.token });
  expect(res.status).toBe(200);
  return new URL(res.body.data.url);
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('the callback checks the browser', () => {
  it('refuses a callback with the right state but no cookie or a wrong one, spends nothing and stores nothing; with the cookie it connects', async () => {
    const mallory = await t.createOwner('Mallory');
    // Mallory signs in in her own browser and sends the victim Google's consent address.
    const { callback, cookie } = await browserConsent(t, fake, mallory);
    const target = `${callback.pathname}${callback.search}`;
    const exchanges = fake.count('token.authorization_code');

    const [name, value] = cookie.split('=') as [string, string];
    const wrongValue = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const headers of [{} as Record<string, string>, { cookie: wrongValue }, { cookie: `hearth_oauth_0123456789abcdef=${value}` }, { cookie: `${name}=` }]) {
      const refused = await t.request('GET', target, { headers });
      expect(expectError(refused, 403, 'FORBIDDEN').message, JSON.stringify(headers)).toMatch(/browser where the Hearth account's owner signed in/);
      expect(refused.headers['set-cookie']).toBeUndefined();
    }
    expect(fake.count('token.authorization_code')).toBe(exchanges);
    expect(await connected(mallory)).toBe(false);
    expect((await t.storage.db.selectFrom('oauth_connections').selectAll().where('owner_id', '=', mallory.id).execute()).length).toBe(0);

    // The flow was not spent: the browser that started it still finishes it, once.
    const res = await t.request('GET', target, { headers: { cookie: `other=1; ${cookie}` } });
    expect(res.status, res.text).toBe(200);
    expect(String(res.headers['set-cookie'])).toBe(`${name}=; Path=/api/v1/oauth/callback/google; Max-Age=0; HttpOnly; SameSite=Lax`);
    expect(await connected(mallory)).toBe(true);
    expectError(await t.request('GET', target, { headers: { cookie } }), 400, 'VALIDATION_ERROR');
  });

  it("a cookie of the same owner's other flow does not fit", async () => {
    const owner = await t.createOwner();
    const first = await browserConsent(t, fake, owner);
    const second = await browserConsent(t, fake, owner);
    expect(first.cookie.split('=')[0]).not.toBe(second.cookie.split('=')[0]);
    const crossed = `${first.callback.pathname}${first.callback.search}`;
    const secondValue = second.cookie.split('=')[1];
    expectError(await t.request('GET', crossed, { headers: { cookie: `${first.cookie.split('=')[0]}=${secondValue}` } }), 403, 'FORBIDDEN');
    // Both flows work side by side, each in its own browser state.
    expect((await t.request('GET', crossed, { headers: { cookie: `${second.cookie}; ${first.cookie}` } })).status).toBe(200);
    const other = `${second.callback.pathname}${second.callback.search}`;
    expect((await t.request('GET', other, { headers: { cookie: second.cookie } })).status).toBe(200);
  });
});

describe('the connect page', () => {
  it("names the Hearth account, and only that account's password binds the browser", async () => {
    const mallory = await t.createOwner('Mallory');
    const victim = await t.createOwner('Victim');
    const url = await connectUrl(mallory);
    const page = await t.request('GET', `${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain(mallory.email);
    expect(page.headers['x-frame-options']).toBe('DENY');
    // Its one form posts to this server, which answers with a page: nowhere else is allowed.
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['set-cookie']).toBeUndefined();
    // The victim opening Mallory's link cannot go on: their password is not Mallory's.
    const state = url.searchParams.get('state')!;
    for (const password of [victim.password, '', 'guess']) {
      const res = await t.request('POST', url.pathname, { body: form({ state, password }), headers: FORM });
      expectError(res, 403, 'FORBIDDEN');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expectError(await t.request('POST', url.pathname, { body: form({ state }), headers: FORM }), 403, 'FORBIDDEN');
  });

  it('sets a HttpOnly, SameSite=Lax cookie scoped to the callback, lasting no longer than the flow', async () => {
    const owner = await t.createOwner();
    const url = await connectUrl(owner);
    const res = await t.request('POST', url.pathname, { body: form({ state: url.searchParams.get('state')!, password: owner.password }), headers: FORM });
    expect(res.status).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^hearth_oauth_[0-9a-f]{16}=[A-Za-z0-9_-]{43}; Path=\/api\/v1\/oauth\/callback\/google; Max-Age=(\d+); HttpOnly; SameSite=Lax$/);
    expect(Number(/Max-Age=(\d+)/.exec(setCookie)![1])).toBeLessThanOrEqual(600);
    // http here; an https PUBLIC_BASE_URL adds Secure.
    expect(setCookie).not.toContain('Secure');
    expect(res.text).toContain(`${fake.url}/o/oauth2/v2/auth?`);
    expect(res.text).toContain('http-equiv="refresh"');
    // Going on to the provider is a navigation, which the policy leaves alone; the page posts nothing.
    expect(res.headers['content-security-policy']).toContain("form-action 'none'; base-uri 'none'");
    expect(res.headers['cache-control']).toBe('no-store');

    const secure = await createTestApp({
      config: {
        publicBaseUrl: 'https://hearth.example',
        google: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, endpointOverride: fake.url },
      },
    });
    try {
      const other = await secure.createOwner();
      const authorize = await secure.request('GET', '/api/v1/oauth/authorize/google', { token: other.token });
      const link = new URL(authorize.body.data.url);
      expect(link.origin).toBe('https://hearth.example');
      const signedIn = await secure.request('POST', link.pathname, {
        body: form({ state: link.searchParams.get('state')!, password: other.password }),
        headers: { ...FORM, origin: 'https://hearth.example' },
      });
      expect(signedIn.status).toBe(200);
      expect(String(signedIn.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await secure.close();
    }
  });

  it('refuses a sign-in posted from another site (no cookie is set)', async () => {
    const owner = await t.createOwner();
    const url = await connectUrl(owner);
    const body = form({ state: url.searchParams.get('state')!, password: owner.password });
    for (const headers of [{ ...FORM, origin: 'https://evil.example' }, { ...FORM, 'sec-fetch-site': 'cross-site' }]) {
      const res = await t.request('POST', url.pathname, { body, headers });
      expectError(res, 403, 'FORBIDDEN');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    const own = await t.request('POST', url.pathname, { body, headers: { ...FORM, origin: new URL(t.config.publicBaseUrl).origin, 'sec-fetch-site': 'same-origin' } });
    expect(own.status).toBe(200);
  });

  it('an unknown, used or expired state answers 400, naming where the request carried it', async () => {
    const page = expectError(await t.request('GET', `/api/v1/oauth/connect/google?state=${'A'.repeat(43)}`), 400, 'VALIDATION_ERROR');
    expect(page.details).toEqual([{ field: 'querystring.state', message: 'is unknown, used or expired' }]);
    expectError(await t.request('GET', '/api/v1/oauth/connect/google'), 400, 'VALIDATION_ERROR');
    const owner = await t.createOwner();
    const signIn = expectError(
      await t.request('POST', '/api/v1/oauth/connect/google', { body: form({ state: 'A'.repeat(43), password: owner.password }), headers: FORM }),
      400,
      'VALIDATION_ERROR',
    );
    // The sign-in form sends the state in its body.
    expect(signIn.details).toEqual([{ field: 'body.state', message: 'is unknown, used or expired' }]);
  });
});

describe('under a PUBLIC_BASE_URL with a path (behind a proxy that strips it)', () => {
  // What a browser does: resolve addresses against the page, send a cookie only where its Path matches (RFC 6265 5.1.4).
  const pathMatches = (cookiePath: string, requestPath: string) =>
    requestPath === cookiePath || (requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/'));
  const BASE = 'https://me.example/hearth';
  const throughProxy = (url: URL) => {
    expect(url.origin).toBe('https://me.example');
    expect(url.pathname.startsWith('/hearth/'), url.pathname).toBe(true);
    return `${url.pathname.slice('/hearth'.length)}${url.search}`;
  };

  it('the form posts under the base path, and the binding cookie reaches the callback and is cleared there', async () => {
    const based = await createTestApp({
      config: { publicBaseUrl: BASE, allowPrivateNetwork: true, google: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, endpointOverride: fake.url } },
    });
    try {
      const owner = await based.createOwner();
      const authorize = await based.request('GET', '/api/v1/oauth/authorize/google', { token: owner.token });
      expect(authorize.status).toBe(200);
      const pageUrl = new URL(authorize.body.data.url);
      const page = await based.request('GET', throughProxy(pageUrl));
      expect(page.status, page.text).toBe(200);
      const action = /<form method="post" action="([^"]*)"/.exec(page.text)?.[1];
      expect(action).toBeDefined();
      const postUrl = new URL(action!, pageUrl);
      expect(postUrl.pathname).toBe('/hearth/api/v1/oauth/connect/google');
      const signedIn = await based.request('POST', throughProxy(postUrl), {
        body: form({ state: pageUrl.searchParams.get('state')!, password: owner.password }),
        headers: { ...FORM, origin: 'https://me.example' },
      });
      expect(signedIn.status, signedIn.text).toBe(200);
      const setCookie = String(signedIn.headers['set-cookie']);
      const cookiePath = /; Path=([^;]+)/.exec(setCookie)![1]!;
      expect(setCookie).toMatch(/; Secure$/);

      const href = /id="continue" href="([^"]+)"/.exec(signedIn.text)![1]!.replace(/&amp;/g, '&');
      const callback = await fake.consent(href);
      expect(callback.pathname).toBe('/hearth/api/v1/oauth/callback/google');
      expect(pathMatches(cookiePath, callback.pathname), `cookie Path=${cookiePath}, callback ${callback.pathname}`).toBe(true);
      const cookie = setCookie.split(';')[0]!;
      const res = await based.request('GET', throughProxy(callback), { headers: { cookie } });
      expect(res.status, res.text).toBe(200);
      // The clearing Set-Cookie names the same cookie (same path, Secure) so the browser replaces it.
      expect(String(res.headers['set-cookie'])).toBe(`${cookie.split('=')[0]}=; Path=${cookiePath}; Max-Age=0; HttpOnly; SameSite=Lax; Secure`);
    } finally {
      await based.close();
    }
  });
});
