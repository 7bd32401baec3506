// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * An app's OAuth consent approved from the console, in a real browser: the consent page (opened
 * by an MCP client, here a page of its own) is sent to the console with "Send to my console",
 * the signed-in console shows the request live and approves it with fewer scopes, and the
 * waiting page goes on by itself to the app's redirect address with a code.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../harness.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

// The one browser function a check below runs in the page (the tests compile without the DOM's types).
declare const getComputedStyle: (element: unknown) => { backgroundColor: string };

describe.runIf(BROWSER_TESTS)('an app approved from the console, in Chromium', () => {
  let c: ConsoleUnderTest;
  let owner: Owner;
  // The app's redirect address: a local server standing for an MCP client's callback.
  let app: Server;
  let redirectUri: string;
  const callbacks: URL[] = [];

  beforeAll(async () => {
    c = await startConsole();
    owner = await c.t.createOwner('Browser Owner');
    app = createServer((request, response) => {
      callbacks.push(new URL(request.url ?? '/', redirectUri));
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end('<!doctype html><title>Connected</title><h1>The app received its answer</h1>');
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
  }, 60_000);
  afterAll(async () => {
    await new Promise<void>((resolve) => app?.close(() => resolve()));
    await c?.close();
  });
  afterEach(() => expect(c.problems).toEqual([]));

  it('sends the consent to the console, which approves it live with fewer scopes; the waiting page lands on the app with a code', async () => {
    const registered = await fetch(`${c.base}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Notes Assistant', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    const client = (await registered.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${c.base}/authorize`);
    for (const [key, value] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'browser-state',
      scope: 'read memory identity',
      resource: `${c.base}/mcp`,
    })) {
      authorize.searchParams.set(key, value);
    }

    // The owner's console, signed in on another device.
    const { page: consolePage } = await c.newPage();
    await signIn(consolePage, owner.email, owner.password);
    await consolePage.getByText('No app is waiting').waitFor();

    // The consent page the app opened, on a phone.
    const { page: consent } = await c.newPage({ width: 390, height: 844 });
    await consent.goto(authorize.toString());
    await consent.getByRole('heading', { name: 'Notes Assistant wants to use your Hearth' }).waitFor();
    // Its style sheet applies: the page's policy allows it by its hash (a refusal would be a CSP problem too).
    expect(await consent.locator('button.approve').evaluate((button) => getComputedStyle(button).backgroundColor)).toBe('rgb(26, 95, 208)');
    await consent.getByLabel('Email of your Hearth account').fill(owner.email);
    await c.screenshot(consent, 'consent-01-send-to-console');
    await consent.getByRole('button', { name: 'Send to my console' }).click();
    await consent.getByRole('heading', { name: 'Waiting for your decision in the Hearth console' }).waitFor();
    expect(new URL(consent.url()).pathname).toBe('/authorize/wait');
    await c.screenshot(consent, 'consent-02-waiting');

    // Live: the request shows up in the console without a reload, and the navigation counts it.
    const card = consolePage.getByRole('article', { name: 'App Notes Assistant' });
    await card.waitFor({ timeout: 5_000 });
    await consolePage.getByRole('navigation').getByText('1', { exact: true }).waitFor({ timeout: 5_000 });
    expect(await card.textContent()).toContain(new URL(redirectUri).host);
    await consolePage.getByText('Approve only if you started connecting this app yourself').waitFor();
    await c.screenshot(consolePage, 'consent-03-console-pending');
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    const picker = card.getByRole('group', { name: 'Grant these scopes' });
    await expect(picker.getByRole('checkbox', { name: /^memory\b/ }).isChecked()).resolves.toBe(true);
    await expect(picker.getByRole('checkbox', { name: /^identity\b/ }).isChecked()).resolves.toBe(true);
    await picker.getByRole('checkbox', { name: /^memory\b/ }).uncheck();
    await c.screenshot(consolePage, 'consent-04-console-choosing');
    await card.getByRole('button', { name: 'Approve with 2 scopes' }).click();
    await card.waitFor({ state: 'detached' });
    await consolePage.getByText('No app is waiting').waitFor();

    // The waiting page refreshes itself (no script) and lands on the app with its code.
    await consent.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 8_000 });
    await consent.getByRole('heading', { name: 'The app received its answer' }).waitFor();
    await c.screenshot(consent, 'consent-05-landed-on-app');
    await c.screenshot(consolePage, 'consent-06-console-after');
    // The browser asks the app for its icon too: the answer is the request to the callback.
    const landed = new URL(consent.url());
    expect(callbacks.filter((url) => url.pathname === '/callback').map((url) => url.href)).toEqual([landed.href]);
    expect(landed.searchParams.get('state')).toBe('browser-state');
    expect(landed.searchParams.get('iss')).toBe(c.base);
    const code = landed.searchParams.get('code')!;
    expect(code).toMatch(/^hac_/);

    // The app exchanges the code: the token holds what the owner granted.
    const exchanged = await fetch(`${c.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id }),
    });
    expect(exchanged.status).toBe(200);
    expect(((await exchanged.json()) as { scope: string }).scope).toBe('read identity');
  });
});
