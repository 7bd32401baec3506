// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * The account's credentials in the console, in a real browser: the profile page changes the
 * password (a wrong current one shows its message and keeps the page signed in), the owner
 * signs out and in again with the new one, and changes the sign-in email.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

describe.runIf(BROWSER_TESTS)('changing the password and the email in Chromium', () => {
  let c: ConsoleUnderTest;
  beforeAll(async () => {
    c = await startConsole();
  }, 60_000);
  afterAll(async () => c?.close());
  afterEach(() => expect(c.problems).toEqual([]));

  it('changes the password, signs out, and signs in with the new one', async () => {
    const owner = await c.t.createOwner();
    const elsewhere = await c.t.login(owner);
    const { page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/profile');
    const form = page.getByRole('form', { name: 'Change password' });
    await form.waitFor();

    // A wrong current password: the server's words, and the page stays signed in.
    await form.getByLabel('Current password').fill('not my password');
    await form.getByLabel('New password', { exact: true }).fill('a brand new password');
    await form.getByLabel('Repeat the new password').fill('a brand new password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('The current password is wrong; the password was not changed').waitFor();
    expect(await page.getByRole('heading', { level: 1, name: 'Identity and preferences' }).isVisible()).toBe(true);

    // The repetition must match before anything is sent.
    await form.getByLabel('Current password').fill(owner.password);
    await form.getByLabel('Repeat the new password').fill('a different password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('The new password and its repetition differ').waitFor();

    await form.getByLabel('Repeat the new password').fill('a brand new password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByRole('status').getByText('Password changed. 1 other session was signed out; this one stays.').waitFor();
    await c.screenshot(page, 'account-01-password-changed');
    // The other session ended; this page's goes on.
    expect((await c.t.request('GET', '/api/v1/auth/me', { token: elsewhere })).status).toBe(401);
    await page.goto('/profile');
    await page.getByRole('heading', { level: 1, name: 'Identity and preferences' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Hearth' }).waitFor();
    // The old password no longer signs in; the new one does.
    expect((await c.t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } })).status).toBe(401);
    await signIn(page, owner.email, 'a brand new password');
  });

  it('changes the sign-in email; one another account uses is refused with its reason', async () => {
    const owner = await c.t.createOwner();
    const other = await c.t.createOwner();
    const { page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/profile');
    const form = page.getByRole('form', { name: 'Change email' });
    await form.getByLabel('New email').fill(other.email);
    await form.getByLabel('Password').fill(owner.password);
    await form.getByRole('button', { name: 'Change email' }).click();
    await form.getByText(`Another account already signs in with ${other.email}`).waitFor();

    const fresh = `moved-${Date.now()}@example.test`;
    await form.getByLabel('New email').fill(fresh);
    await form.getByRole('button', { name: 'Change email' }).click();
    await form.getByRole('status').getByText(`Email changed: you now sign in with ${fresh}.`).waitFor();
    await c.screenshot(page, 'account-02-email-changed');
    expect((await c.t.request('GET', '/api/v1/auth/me', { token: owner.token })).body.data.email).toBe(fresh);
  });
});
