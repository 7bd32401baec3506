// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * The console in a real browser, as its owner uses it: the first visit to a new server, signing
 * in, answering an agent's request live, and the safety of the session in the page. The pages
 * of each area have their own file beside this one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_PAGES } from '../../src/modules/console/console.pages.js';
import { CONSOLE_CSP } from '../../src/modules/console/console.routes.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

// The page's globals the callbacks run in the browser use (this suite compiles without the DOM library).
interface WebStorage {
  getItem(key: string): string | null;
}
declare const localStorage: WebStorage;
declare const sessionStorage: WebStorage;
declare const document: {
  activeElement: { textContent: string | null } | null;
  cookie: string;
  documentElement: { scrollWidth: number };
  body: { append(node: unknown): void };
  createElement(tag: 'form'): { method: string; action: string; submit(): void };
};

const EMAIL = 'owner@example.test';
const PASSWORD = 'a-long-password-1';

describe.runIf(BROWSER_TESTS)('the console in Chromium', () => {
  let c: ConsoleUnderTest;
  beforeAll(async () => {
    c = await startConsole();
  }, 60_000);
  afterAll(async () => c?.close());
  afterEach(() => expect(c.problems).toEqual([]));

  it('on a new server, creates the owner account, shows the master token once, and signs in', async () => {
    const { page } = await c.newPage();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Create your Hearth account' }).waitFor();
    await c.screenshot(page, '01-first-run');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();

    const token = page.getByRole('textbox', { name: 'Master token' });
    await token.waitFor();
    const masterToken = await token.inputValue();
    expect(masterToken).toMatch(/^hth_/);
    await page.getByText('This is the only time it is shown').waitFor();
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await c.screenshot(page, '02-master-token');
    // The token shown is the account's master token.
    const me = await fetch(`${c.base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${masterToken}` } });
    expect(me.status).toBe(200);

    await page.getByRole('button', { name: 'I have saved it, continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    await c.screenshot(page, '03-home-empty');
  });

  it('signs in with email and password, and signs out', async () => {
    const { page } = await c.newPage();
    await page.goto('/');
    // The account exists now: the page offers to sign in.
    await page.getByRole('heading', { name: 'Sign in to Hearth' }).waitFor();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/password/i);
    await c.screenshot(page, '04-sign-in-refused');

    // With the keyboard alone: the email field has focus on arrival, Tab leads to the password, Enter sends.
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Hearth' }).waitFor();
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    // The first Tab on a page reaches the link that skips the navigation.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await c.screenshot(page, '05-home');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Hearth' }).waitFor();
    // The session is gone on the server too: a reload does not bring the console back. Signed
    // out, the page does not ask the server who is signed in, so nothing answers 401 and the
    // browser's console shows no red line.
    // The signed-out page is left first, so that what it still did while closing (its live
    // stream meeting the ended session) is not counted as the new load's.
    await page.goto('about:blank');
    const refusals: string[] = [];
    page.on('response', (response) => {
      if (response.status() === 401) refusals.push(response.url());
    });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in to Hearth' }).waitFor();
    expect(refusals).toEqual([]);
    expect(errors).toEqual([]);
  });

  /** An agent asks through the API, as agents do; answers the handshake's id. */
  async function agentAsks(agentId: string, requestedScopes: string[]): Promise<string> {
    const res = await fetch(`${c.base}/api/v1/handshakes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agentId, requestedScopes, message: `I am ${agentId}, and I would like to read your profile.` }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { handshakeId: string } }).data.handshakeId;
  }

  /** The scopes of the token an approved handshake made, read with the master token. */
  async function grantedScopes(handshakeId: string): Promise<string[]> {
    const owner = await c.t.request('POST', '/api/v1/auth/login', { body: { email: EMAIL, password: PASSWORD } });
    const session = owner.body.data.token as string;
    const list = await c.t.request('GET', '/api/v1/handshakes', { token: session, query: { status: 'approved' } });
    const handshake = (list.body.data as Array<{ handshakeId: string; tokenId: string }>).find((h) => h.handshakeId === handshakeId)!;
    const token = await c.t.request('GET', `/api/v1/tokens/${handshake.tokenId}`, { token: session });
    return [...(token.body.data.scopes as string[])].sort();
  }

  async function approveNarrowed(page: Page, agentId: string): Promise<void> {
    const card = page.getByRole('article', { name: `Request from ${agentId}` });
    // Live: the request shows up without a reload, within 5 seconds.
    await card.waitFor({ timeout: 5_000 });
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    const picker = card.getByRole('group', { name: 'Grant these scopes' });
    // The scopes asked for are ticked, each labelled with its meaning.
    await expect(picker.getByRole('checkbox', { name: /^read\b/ }).isChecked()).resolves.toBe(true);
    await expect(picker.getByRole('checkbox', { name: /^professional\b/ }).isChecked()).resolves.toBe(true);
    await expect(picker.getByRole('checkbox', { name: /^memory\b/ }).isChecked()).resolves.toBe(false);
    await picker.getByRole('checkbox', { name: /^professional\b/ }).uncheck();
    await card.getByRole('button', { name: 'Approve with 2 scopes' }).click();
    await card.getByRole('heading', { name: `${agentId} may now use: read, availability` }).waitFor();
  }

  it('shows an agent\'s request live and approves it with fewer scopes than asked', async () => {
    const { page } = await c.newPage();
    const streams: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/v1/events')) streams.push(request.url());
    });
    await signIn(page, EMAIL, PASSWORD);
    await page.getByText('Nothing waits for you').waitFor();
    const handshakeId = await agentAsks('calendar-agent', ['read', 'professional', 'availability']);
    const card = page.getByRole('article', { name: 'Request from calendar-agent' });
    await card.waitFor({ timeout: 5_000 });
    // The navigation counts what waits.
    await page.getByRole('navigation').getByText('1', { exact: true }).waitFor({ timeout: 5_000 });
    await c.screenshot(page, '06-handshake-pending');
    await approveNarrowed(page, 'calendar-agent');
    await c.screenshot(page, '07-handshake-approved');
    expect(await grantedScopes(handshakeId)).toEqual(['availability', 'read']);
    // The navigation's count and the page share one stream: a tab holds one connection for it.
    expect(streams).toHaveLength(1);
  });

  it('runs the approve flow on a phone-width screen', async () => {
    const { page } = await c.newPage({ width: 390, height: 844 });
    await signIn(page, EMAIL, PASSWORD);
    const handshakeId = await agentAsks('phone-agent', ['read', 'professional', 'availability']);
    await page.getByRole('article', { name: 'Request from phone-agent' }).waitFor({ timeout: 5_000 });
    // The navigation folds into a menu that carries the count.
    await page.getByRole('button', { name: 'Menu (1)' }).waitFor({ timeout: 5_000 });
    expect(await page.getByRole('navigation').isVisible()).toBe(false);
    // Nothing is wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await c.screenshot(page, '08-phone-pending');
    await approveNarrowed(page, 'phone-agent');
    await c.screenshot(page, '09-phone-approved');
    expect(await grantedScopes(handshakeId)).toEqual(['availability', 'read']);
  });

  it("shows an action the token's policy held, live, and runs it once when approved", async () => {
    const owner = await c.t.request('POST', '/api/v1/auth/login', { body: { email: EMAIL, password: PASSWORD } });
    const session = owner.body.data.token as string;
    const created = await c.t.request('POST', '/api/v1/tokens', { token: session, body: { name: 'tidy-agent', scopes: ['memory'] } });
    const agent = created.body.data.token as string;
    const policy = await c.t.request('PUT', `/api/v1/tokens/${created.body.data.id}/policy`, { token: session, body: { rules: { 'memory.delete': 'ask' } } });
    expect(policy.status).toBe(200);
    const memory = await c.t.request('POST', '/api/v1/memory', { token: session, body: { content: 'The shed key is under the blue pot.' } });
    const memoryId = memory.body.data.id as string;

    const { page } = await c.newPage();
    await signIn(page, EMAIL, PASSWORD);
    const held = await c.t.request('DELETE', `/api/v1/memory/${memoryId}`, { token: agent });
    expect(held.status).toBe(202);
    const card = page.getByRole('article', { name: 'Action by tidy-agent' });
    await card.waitFor({ timeout: 5_000 });
    await c.screenshot(page, '13-action-held');
    const remembered = async () => ((await c.t.request('GET', '/api/v1/memory', { token: session })).body.data as Array<{ id: string }>).some((m) => m.id === memoryId);
    // Nothing ran yet.
    expect(await remembered()).toBe(true);
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.getByRole('status').filter({ hasText: 'Approved and done' }).waitFor();
    await c.screenshot(page, '14-action-approved');
    expect(await remembered()).toBe(false);
    const approval = await c.t.request('GET', `/api/v1/approvals/${held.body.data.approvalId}`, { token: agent });
    expect(approval.body.data).toMatchObject({ status: 'executed', resultStatus: 200 });
  });

  describe('safety of the session in the page', () => {
    let evil: Server;
    let evilOrigin: string;
    beforeAll(async () => {
      // Another site the owner visits while signed in: it tries to use the owner's session.
      evil = createServer((request, response) => {
        response.setHeader('content-type', 'text/html');
        response.end(`<!doctype html><title>Win a prize</title><p>Hello</p>`);
      });
      await new Promise<void>((resolve) => evil.listen(0, 'localhost', resolve));
      evilOrigin = `http://localhost:${(evil.address() as AddressInfo).port}`;
    });
    afterAll(async () => new Promise<void>((resolve) => evil.close(() => resolve())));

    it('keeps the session in an HttpOnly, SameSite=Strict cookie, and in web storage only its binding, which is no token', async () => {
      const { context, page } = await c.newPage();
      await signIn(page, EMAIL, PASSWORD);
      for (const path of ['/agents', '/', '/memory']) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1 }).waitFor();
      }
      const stored = await page.evaluate(() => ({
        local: Object.keys(localStorage).map((key) => `${key}=${localStorage.getItem(key)}`),
        session: Object.keys(sessionStorage).map((key) => `${key}=${sessionStorage.getItem(key)}`),
        cookie: document.cookie,
      }));
      expect(stored).toEqual({ local: [expect.stringMatching(/^hearth\.sessionBinding=[A-Za-z0-9_-]{43}$/)], session: [], cookie: '' });
      const binding = stored.local[0]!.split('=')[1]!;
      expect(binding).not.toMatch(/hth_/);
      const cookies = await context.cookies();
      expect(cookies.map((cookie) => ({ name: cookie.name, httpOnly: cookie.httpOnly, sameSite: cookie.sameSite }))).toEqual([
        { name: 'hearth_session', httpOnly: true, sameSite: 'Strict' },
      ]);
      // The binding alone acts for no one.
      const alone = await fetch(`${c.base}/api/v1/auth/me`, { headers: { 'x-hearth-session-binding': binding, 'sec-fetch-site': 'same-origin' } });
      expect(alone.status).toBe(401);
      // No page of the console holds a token in its markup either.
      expect(await page.content()).not.toMatch(/hth_[a-z]+_[0-9A-Za-z]{8,}/);
      // A reload, and a second tab, are still signed in.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Memory' }).waitFor();
      const second = await context.newPage();
      await second.goto('/');
      await second.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
      await second.close();
    });

    it('refuses to act as a session that a page on another port of the host planted in its cookie', async () => {
      // Another account on the same server, whose session the other page plants.
      const email = 'intruder@example.test';
      const password = 'intruder-password-1';
      const registered = await c.t.request('POST', '/api/v1/auth/register', { body: { email, password, name: 'Intruder' } });
      expect(registered.status).toBe(201);
      await c.t.request('POST', '/api/v1/memory', { token: registered.body.data.token, body: { content: 'A note only the intruder has' } });
      const intruderSession = (await c.t.request('POST', '/api/v1/auth/login', { body: { email, password } })).body.data.token as string;
      // A page on another port of 127.0.0.1: cookies are not kept apart by port, so its
      // Set-Cookie replaces the console's own.
      const planter = createServer((_request, response) => {
        response.setHeader('set-cookie', `hearth_session=${intruderSession}; Path=/; HttpOnly; SameSite=Strict`);
        response.setHeader('content-type', 'text/html');
        response.end('<!doctype html><title>Free stickers</title><p>Hello</p>');
      });
      await new Promise<void>((resolve) => planter.listen(0, '127.0.0.1', resolve));
      const planterOrigin = `http://127.0.0.1:${(planter.address() as AddressInfo).port}`;
      try {
        const { context, page } = await c.newPage();
        await signIn(page, EMAIL, PASSWORD);
        await page.goto(`${planterOrigin}/`);
        expect((await context.cookies(c.base)).find((cookie) => cookie.name === 'hearth_session')?.value).toBe(intruderSession);

        // Every answer the console gets from now on: none may be the intruder's data.
        const answered: string[] = [];
        page.on('response', (response) => {
          const url = new URL(response.url());
          if (url.origin === c.base && url.pathname.startsWith('/api/v1/') && url.pathname !== '/api/v1/auth/registration' && response.ok()) answered.push(url.pathname);
        });
        await page.goto(`${c.base}/memory`);
        // The console does not act as the planted session: it asks to sign in again.
        await page.getByRole('heading', { name: 'Sign in to Hearth' }).waitFor();
        await c.screenshot(page, '15-planted-cookie-refused');
        expect(answered).toEqual([]);
        expect(await page.content()).not.toContain('A note only the intruder has');

        // Signing in again on this page replaces the planted cookie with the owner's own session.
        await page.getByLabel('Email').fill(EMAIL);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { level: 1, name: 'Memory' }).waitFor();
        await page.reload();
        await page.getByRole('heading', { level: 1, name: 'Memory' }).waitFor();
        await expect.poll(() => page.getByText(/^Loading[^…]*…$/).count()).toBe(0);
        expect(await page.content()).not.toContain('A note only the intruder has');
      } finally {
        await new Promise<void>((resolve) => planter.close(() => resolve()));
      }
    });

    it('refuses what another site makes the signed-in browser send', async () => {
      const { page } = await c.newPage();
      await signIn(page, EMAIL, PASSWORD);
      await page.goto(`${evilOrigin}/`);
      const outcome = await page.evaluate(async (target) => {
        // A simple request needs no CORS preflight: it reaches the server whatever CORS says.
        await fetch(`${target}/api/v1/memory`, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{"content":"planted by another site"}' });
        const form = document.createElement('form');
        form.method = 'POST';
        form.action = `${target}/api/v1/auth/logout`;
        document.body.append(form);
        form.submit();
        return 'sent';
      }, c.base);
      expect(outcome).toBe('sent');
      // The form's answer: the server saw no session (SameSite=Strict kept the cookie home).
      await page.waitForURL(/\/api\/v1\/auth\/logout$/);
      expect(await page.locator('body').textContent()).toContain('UNAUTHORIZED');
      const owner = await c.t.request('POST', '/api/v1/auth/login', { body: { email: EMAIL, password: PASSWORD } });
      const memory = await c.t.request('GET', '/api/v1/memory', { token: owner.body.data.token });
      expect(JSON.stringify(memory.body.data)).not.toContain('planted by another site');
      // The console's own session still works: nothing was done with it.
      await page.goto(`${c.base}/`);
      await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    });

    it('sends the strict CSP with every page of the console', async () => {
      const { page } = await c.newPage();
      await signIn(page, EMAIL, PASSWORD);
      for (const { path } of CONSOLE_PAGES) {
        const response = await page.goto(path);
        expect(response?.headers()['content-security-policy'], path).toBe(CONSOLE_CSP);
        await page.getByRole('heading', { level: 1 }).waitFor();
        // Each page as it looks once loaded, for the record CI keeps.
        await expect.poll(() => page.getByText(/^Loading[^…]*…$/).count()).toBe(0);
        await c.screenshot(page, `page${path === '/' ? '-home' : path.replaceAll('/', '-')}`);
      }
    });
  });
});
