// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * Deleting the account from the console, in a real browser: the profile page says what goes and
 * offers the export first, the button waits for the email typed again, a wrong password shows its
 * message and keeps the page signed in; the deletion signs the page out, and signing in fails.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

describe.runIf(BROWSER_TESTS)('deleting the account in Chromium', () => {
  let c: ConsoleUnderTest;
  beforeAll(async () => {
    c = await startConsole();
    // The server's administrator, so that the account below is an ordinary one.
    await c.t.createOwner('Administrator');
  }, 60_000);
  afterAll(async () => c?.close());
  afterEach(() => expect(c.problems).toEqual([]));

  it('deletes the account with its confirmation, then signing in fails', async () => {
    const owner = await c.t.createOwner();
    expect((await c.t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'Soon gone' } })).status).toBe(201);
    const { page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/profile');
    const form = page.getByRole('form', { name: 'Delete account' });
    await form.waitFor();
    await form.getByText('It cannot be undone').waitFor();
    expect(await form.getByRole('link', { name: 'Export my data first' }).getAttribute('href')).toBe('/data');

    // The button waits for the account's email.
    const button = form.getByRole('button', { name: 'Delete my account for good' });
    await form.getByLabel('Password').fill('not my password');
    await form.getByLabel(/Type your email/).fill('someone-else@example.test');
    expect(await button.isDisabled()).toBe(true);
    await form.getByLabel(/Type your email/).fill(owner.email);
    expect(await button.isDisabled()).toBe(false);

    // A wrong password: the server's words, and nothing is deleted.
    await button.click();
    await form.getByText('The password is wrong; nothing was deleted').waitFor();
    expect(await page.getByRole('heading', { level: 1, name: 'Identity and preferences' }).isVisible()).toBe(true);
    expect((await c.t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(200);
    await c.screenshot(page, 'account-deletion-01-confirm');

    await form.getByLabel('Password').fill(owner.password);
    await button.click();
    await page.getByRole('heading', { name: 'Sign in to Hearth' }).waitFor();
    await c.screenshot(page, 'account-deletion-02-signed-out');

    expect((await c.t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(401);
    // Signing in again fails: the account is gone.
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Wrong email or password').waitFor();
    expect((await c.t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } })).status).toBe(401);
  });
});
