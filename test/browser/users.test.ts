// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * The administrator's Users page in a real browser: the administrator creates an account, moves
 * it to another plan and disables it; that account's sign-in is then refused with the reason, and
 * a console it had open goes back to the sign-in page saying why. Enabling lets it in again. The
 * page is listed for the administrator alone, and works at a phone's width.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';
import type { Owner } from '../harness.js';

// The page's globals the callbacks run in the browser use (this suite compiles without the DOM library).
declare const document: { documentElement: { scrollWidth: number } };

describe.runIf(BROWSER_TESTS)("the administrator's Users page in Chromium", () => {
  let c: ConsoleUnderTest;
  let admin: Owner;
  beforeAll(async () => {
    c = await startConsole();
    // The first account is the administrator.
    admin = await c.t.createOwner('The Administrator');
  }, 60_000);
  afterAll(async () => c?.close());
  afterEach(() => expect(c.problems).toEqual([]));

  it('creates a user, sets its plan, disables it: its sign-in fails and its open console signs out; enabling lets it in again', async () => {
    const email = `new-user-${Date.now()}@example.test`;
    const password = 'a password for the new user';
    const { page } = await c.newPage();
    await signIn(page, admin.email, admin.password);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    // The administrator's own account is listed, and cannot be disabled.
    const own = page.getByRole('article', { name: admin.email });
    await own.getByText('Your own account cannot be disabled').waitFor();
    expect(await own.getByRole('button', { name: /Disable/ }).count()).toBe(0);

    // Create: a server refusal is shown in its own words, then the account is made.
    await page.getByRole('button', { name: 'Create user' }).click();
    const form = page.getByRole('form', { name: 'Create user' });
    await form.getByLabel('Email').fill(admin.email);
    await form.getByLabel('Name').fill('New User');
    await form.getByLabel('Password').fill(password);
    await form.getByRole('button', { name: 'Create user' }).click();
    await form.getByText(`An account with the email ${admin.email} already exists`).waitFor();
    await form.getByLabel('Email').fill(email);
    await form.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('status').getByText(`Account created for ${email}.`).waitFor();

    // The new account signs in, in a browser of its own, before anything else happens.
    const { page: theirs } = await c.newPage();
    await signIn(theirs, email, password);

    // Its plan.
    const card = page.getByRole('article', { name: email });
    await card.getByRole('heading', { name: 'New User' }).waitFor();
    await card.getByLabel('Plan', { exact: true }).selectOption({ label: 'Pro' });
    await card.getByRole('button', { name: 'Change plan' }).click();
    await card.getByRole('status').getByText('Plan changed to Pro.').waitFor();
    const listed = async () => (await c.t.request('GET', '/api/v1/users', { token: admin.token, query: { limit: 200 } })).body.data.find((u: { email: string }) => u.email === email);
    expect(await listed()).toMatchObject({ planId: 'pro', disabled: false });

    // Disable, confirmed first.
    await card.getByRole('button', { name: `Disable ${email}` }).click();
    await card.getByText(`Disable ${email}?`).waitFor();
    await c.screenshot(page, 'users-01-confirm-disable');
    await card.getByRole('button', { name: 'Yes, disable' }).click();
    await card.getByRole('status').getByText(`${email} is disabled`).waitFor();
    await card.getByText('disabled', { exact: true }).waitFor();
    expect(await listed()).toMatchObject({ disabled: true });
    await c.screenshot(page, 'users-02-disabled');

    // Its open console goes back to signing in, and says why.
    await theirs.goto('/memory');
    await theirs.getByRole('heading', { name: 'Sign in to Hearth' }).waitFor();
    await theirs.getByRole('alert').getByText('administrator disabled').waitFor();
    // Its sign-in fails with the reason.
    const { page: again } = await c.newPage();
    await again.goto('/');
    await again.getByLabel('Email').fill(email);
    await again.getByLabel('Password').fill(password);
    await again.getByRole('button', { name: 'Sign in' }).click();
    await again.getByRole('alert').getByText("The server's administrator disabled this account").waitFor();
    expect(await again.getByRole('heading', { name: 'Sign in to Hearth' }).isVisible()).toBe(true);
    await c.screenshot(again, 'users-03-sign-in-refused');

    // Enabled again, confirmed first: it signs in.
    await card.getByRole('button', { name: `Enable ${email}` }).click();
    await card.getByRole('button', { name: 'Yes, enable' }).click();
    await card.getByRole('status').getByText(`${email} is enabled again`).waitFor();
    await signIn(again, email, password);
  });

  it('is listed for the administrator alone; another account that opens it is told whose page it is', async () => {
    const other = await c.t.createOwner('Someone Else');
    const { page } = await c.newPage();
    await signIn(page, other.email, other.password);
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.getByRole('link', { name: 'Plan and usage' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Users' }).count()).toBe(0);
    await page.goto('/users');
    await page.getByText("Only the server's administrator manages its accounts.").waitFor();
  });

  it('works at a phone width', async () => {
    const { page } = await c.newPage({ width: 390 });
    await signIn(page, admin.email, admin.password);
    await page.getByRole('button', { name: /^Menu/ }).click();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    const card = page.getByRole('article', { name: admin.email });
    await card.getByLabel('Plan', { exact: true }).waitFor();
    // Nothing is wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await c.screenshot(page, 'users-04-phone');
  });
});
