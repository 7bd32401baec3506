// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * The console's /reset-password page, in a real browser: the link `hearth reset-password` makes
 * (its service, in process) opens the page signed out, the owner sets a new password (the
 * repetition checked first), the secret leaves the address bar, and the owner signs in with the
 * new password; the same link then answers its reason, and a link with no secret says what to do.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_LINE_ACTOR } from '../../src/modules/accounts/accounts.resets.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

describe.runIf(BROWSER_TESTS)('setting a forgotten password with a reset link in Chromium', () => {
  let c: ConsoleUnderTest;
  beforeAll(async () => {
    c = await startConsole();
  }, 60_000);
  afterAll(async () => c?.close());
  afterEach(() => expect(c.problems).toEqual([]));

  it('opens the link, sets a new password, and signs in with it; the link works once', async () => {
    const owner = await c.t.createOwner();
    const { link } = await c.t.container.passwordResets.issueLink(owner.email, COMMAND_LINE_ACTOR);
    const { pathname, search } = new URL(link);
    const { page } = await c.newPage();
    await page.goto(`${pathname}${search}`);
    const form = page.getByRole('form', { name: 'Set a new password' });
    await form.waitFor();
    // The secret is no longer in the address (nor in the history).
    expect(new URL(page.url()).search).toBe('');

    await form.getByLabel('New password', { exact: true }).fill('my new password');
    await form.getByLabel('Repeat the new password').fill('my other password');
    await form.getByRole('button', { name: 'Set the new password' }).click();
    await form.getByText('The new password and its repetition differ').waitFor();

    await form.getByLabel('Repeat the new password').fill('my new password');
    await form.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your new password is set' }).waitFor();
    await page.getByRole('status').getByText(`${owner.email} now signs in with the new password.`).waitFor();
    await c.screenshot(page, 'reset-password-01-set');

    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in to Hearth' }).waitFor();
    await signIn(page, owner.email, 'my new password');
    expect((await c.t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } })).status).toBe(401);

    // The same link again: the server's words.
    const { page: again } = await c.newPage();
    await again.goto(`${pathname}${search}`);
    const retry = again.getByRole('form', { name: 'Set a new password' });
    await retry.getByLabel('New password', { exact: true }).fill('yet another password');
    await retry.getByLabel('Repeat the new password').fill('yet another password');
    await retry.getByRole('button', { name: 'Set the new password' }).click();
    await retry.getByText(/^This password reset link was used already/).waitFor();
  });

  it('says what to do when the link has no secret', async () => {
    const { page } = await c.newPage();
    await page.goto('/reset-password');
    await page.getByRole('alert').getByText(/This page needs the whole link/).waitFor();
  });
});
