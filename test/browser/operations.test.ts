// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * The owner's operations pages in a real browser: tokens, vault, connections, devices (with a
 * daemon connected in this process), audit log and plan, each also at a phone's width.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectDaemon, type TestDaemon } from '../afp.helpers.js';
import type { Owner } from '../harness.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

// The page's globals the callbacks run in the browser use (this suite compiles without the DOM library).
declare const document: { documentElement: { scrollWidth: number } };

const PHONE = 375;

describe.runIf(BROWSER_TESTS)('the operations pages in Chromium', () => {
  let c: ConsoleUnderTest;
  let owner: Owner;
  let page: Page;
  beforeAll(async () => {
    c = await startConsole();
    owner = await c.t.createOwner();
    ({ page } = await c.newPage({ width: PHONE }));
    await signIn(page, owner.email, owner.password);
  }, 60_000);
  afterAll(async () => c?.close());
  afterEach(async () => {
    expect(c.problems).toEqual([]);
    // Nothing is wider than a phone's screen (tables scroll inside their own box).
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE);
  });

  const open = async (path: string, title: string) => {
    await page.goto(path);
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
  };

  it('creates a token with its secret shown once, regenerates and revokes it after asking', async () => {
    await open('/agents', 'Agents and tokens');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByLabel('Name', { exact: true }).fill('robot');
    await page.getByRole('checkbox', { name: /^memory/ }).check();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const secret = await page.getByRole('region', { name: 'New token' }).getByRole('textbox').inputValue();
    const me = await c.t.request('GET', '/api/v1/tokens/me/capabilities', { token: secret });
    expect(me.status).toBe(200);

    const card = page.getByRole('article', { name: 'robot' });
    await card.getByText('memory', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Regenerate robot' }).click();
    await page.getByRole('button', { name: 'Yes, regenerate' }).click();
    const renewed = await card.getByRole('region', { name: 'New token' }).getByRole('textbox').inputValue();
    expect(renewed).not.toBe(secret);
    expect((await c.t.request('GET', '/api/v1/tokens/me/capabilities', { token: secret })).status).toBe(401);
    await c.screenshot(page, 'ops-01-tokens-phone');

    await page.getByRole('button', { name: 'Revoke robot' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await card.waitFor({ state: 'detached' });
    expect((await c.t.request('GET', '/api/v1/tokens/me/capabilities', { token: renewed })).status).toBe(401);
  });

  it('replaces the master token only with the password, and shows the new one once', async () => {
    await open('/agents', 'Agents and tokens');
    await page.getByRole('button', { name: 'Regenerate master token' }).click();
    await page.getByLabel('Your account password').fill('not the password');
    await c.screenshot(page, 'ops-01b-master-token-phone');
    await page.getByRole('button', { name: 'Yes, regenerate the master token' }).click();
    await page.getByRole('alert').waitFor();
    expect((await c.t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(200);

    await page.getByLabel('Your account password').fill(owner.password);
    await page.getByRole('button', { name: 'Yes, regenerate the master token' }).click();
    const master = await page.getByRole('region', { name: 'New master token' }).getByRole('textbox').inputValue();
    expect((await c.t.request('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(401);
    expect((await c.t.request('GET', '/api/v1/auth/me', { token: master })).status).toBe(200);
    owner = { ...owner, token: master };
  });

  it('stores a vault secret, lists it by hint only, and deletes it after asking', async () => {
    await open('/vault', 'Vault');
    await page.getByText('Revealing a secret is reserved for the master token').waitFor();
    await page.getByRole('button', { name: 'Store a secret' }).click();
    await page.getByLabel('Name', { exact: true }).fill('deploy key');
    // A built-in service is offered by its id, and needs no website: its own address is used.
    // (The catalogue is read when the form opens.)
    await page.locator('datalist option[value="github"]').waitFor({ state: 'attached' });
    expect(await page.locator('datalist option[value="github"]').count()).toBe(1);
    await page.getByLabel('Service', { exact: true }).fill('github');
    await page.getByText('Optional for GitHub, a built-in service').waitFor();
    await page.getByLabel('Secret', { exact: true }).fill('ghp_secretvalue1234');
    await page.getByRole('button', { name: 'Store', exact: true }).click();
    const card = page.getByRole('article', { name: 'deploy key' });
    await card.getByText('…1234').waitFor();
    await card.getByText('https://api.github.com').waitFor();
    expect(await page.content()).not.toContain('ghp_secretvalue1234');
    await c.screenshot(page, 'ops-02-vault-phone');
    await page.getByRole('button', { name: 'Delete deploy key' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await card.waitFor({ state: 'detached' });
    await page.getByText('The vault is empty').waitFor();
  });

  it("shows connections, adds and deletes a connector, and passes on the API's words when a request fails", async () => {
    await open('/connections', 'Connections');
    await page.getByRole('article', { name: 'Google' }).waitFor();
    await page.getByRole('button', { name: 'Add a connector' }).click();
    await page.getByLabel('Name', { exact: true }).fill('local-api');
    await page.getByLabel('Base address').fill('https://api.example.test/v1');
    await page.getByLabel('How the secret is sent').selectOption('none');
    // An API that acts on GET: only the methods listed are reads.
    await page.getByLabel('Which calls only read').selectOption('rpc');
    await page.getByLabel(/^Read methods/).fill('conversations.list, /users.info');
    await page.getByRole('button', { name: 'Add connector' }).click();
    await page.getByRole('article', { name: 'local-api' }).getByText('conversations.list, users.info').waitFor();
    const created = await c.t.request('GET', '/api/v1/connectors', { token: owner.token });
    expect(created.body.data.find((connector: { name: string }) => connector.name === 'local-api')).toMatchObject({ apiStyle: 'rpc', readMethods: ['conversations.list', 'users.info'] });

    // Private and unresolvable addresses are refused by the proxy: the page shows why.
    await page.getByLabel('Service', { exact: true }).selectOption('local-api');
    await page.getByLabel('Path').fill('/status');
    await page.getByRole('button', { name: 'Send' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).not.toMatch(/The server answered/);
    await c.screenshot(page, 'ops-03-connections-phone');

    await page.getByRole('button', { name: 'Delete local-api' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('article', { name: 'local-api' }).waitFor({ state: 'detached' });
  });

  describe('devices', () => {
    let root: string;
    let daemon: TestDaemon | undefined;
    afterAll(async () => {
      await daemon?.link.stop();
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('gives the commands to add a PC with this server address', async () => {
      await open('/devices', 'Devices');
      await page.getByText('No PC is connected yet').waitFor();
      await page.getByRole('button', { name: 'Make a devices token' }).click();
      const token = await page.getByRole('region', { name: 'Token for the PC' }).getByRole('textbox').inputValue();
      await page.getByLabel('The PC runs').selectOption('linux');
      const commands = await page.getByRole('region', { name: 'Add a PC' }).locator('pre').textContent();
      expect(commands).toContain(`curl -fo hearth-afp-linux ${c.base}/api/v1/afp/download/linux`);
      expect(commands).toContain(`HEARTH_AFP_TOKEN=${token} ./hearth-afp-linux --server ${c.base} --privilege read`);
      const link = page.getByRole('link', { name: 'Windows (x86-64)' });
      expect(await link.getAttribute('href')).toBe('/api/v1/afp/download/win');
    });

    it('browses, reads, uploads and runs a command on a connected PC', async () => {
      root = await mkdtemp(path.join(os.tmpdir(), 'hearth-console-afp-'));
      await mkdir(path.join(root, 'notes'));
      await writeFile(path.join(root, 'notes', 'todo.txt'), 'water the plants\n');
      const token = await c.t.tokenWithScopes(owner, ['devices']);
      daemon = await connectDaemon(c.base, { token, name: 'study-pc', root, privilege: 'exec' });

      await open('/devices', 'Devices');
      const card = page.getByRole('article', { name: 'study-pc' });
      await card.getByText('online').waitFor();
      await card.getByRole('button', { name: 'Open files' }).click();
      await page.getByRole('button', { name: 'notes/' }).click();
      await page.getByRole('button', { name: 'Read todo.txt' }).click();
      expect(await page.getByLabel(/^Content of/).textContent()).toBe('water the plants\n');

      await page.getByLabel(/Upload a file/).setInputFiles({ name: 'hello.txt', mimeType: 'text/plain', buffer: Buffer.from('hi there') });
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByRole('button', { name: 'Read hello.txt' }).waitFor();

      await page.getByRole('textbox', { name: /^Command/ }).fill('cat hello.txt; echo oops >&2; exit 3');
      await page.getByRole('button', { name: 'Run' }).click();
      await page.getByText('Exit code 3').waitFor();
      expect(await page.getByLabel('Standard output').textContent()).toBe('hi there');
      expect(await page.getByLabel('Standard error').textContent()).toBe('oops\n');
      await c.screenshot(page, 'ops-04-devices-phone');

      // A PC that went away answers DEVICE_OFFLINE, in the API's words.
      await daemon.link.stop();
      daemon = undefined;
      await page.getByRole('button', { name: 'Run' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/not connected|offline/i);
    });
  });

  it('filters the audit log and exports what it shows as CSV and JSON', async () => {
    await open('/audit', 'Audit log');
    await page.locator('tbody tr').first().waitFor();
    await page.getByLabel('Action').fill('token.*');
    await page.getByRole('button', { name: 'Apply' }).click();
    // The list read before stays in view until the filtered one comes: wait for that one.
    const actionCells = page.locator('tbody tr td:nth-child(2)');
    await expect.poll(async () => (await actionCells.count()) > 0 && (await actionCells.filter({ hasNotText: /^token\./ }).count()) === 0, { timeout: 10_000 }).toBe(true);
    const actions = await actionCells.allTextContents();
    expect(actions.length).toBeGreaterThan(0);
    for (const action of actions) expect(action).toMatch(/^token\./);
    // At a phone's width each row still says who did it.
    expect(await page.getByRole('columnheader', { name: 'Token' }).isVisible()).toBe(true);
    const who = await page.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(who.length).toBe(actions.length);
    for (const name of who) expect(name.trim()).not.toBe('');

    const csv = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csvFile = await csv;
    expect(csvFile.suggestedFilename()).toMatch(/^hearth-audit-.*\.csv$/);
    const json = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON' }).click();
    const rows = JSON.parse(await streamText(await (await json).createReadStream())) as Array<{ action: string }>;
    expect(rows.length).toBe(actions.length);
    expect(rows.every((row) => row.action.startsWith('token.'))).toBe(true);

    // By the token that acted, on the server: the owner's sign-in session made those tokens.
    const tokenFilter = page.getByLabel('Token', { exact: true });
    const session = (await tokenFilter.locator('option').allTextContents()).find((label) => label.endsWith('(sign-in)'))!;
    await tokenFilter.selectOption({ label: session });
    const chosen = await tokenFilter.inputValue();
    await page.getByRole('button', { name: 'Apply' }).click();
    // As above: the export saves the list shown, so wait for the one filtered by the token.
    const tokenCells = page.locator('tbody tr td:nth-child(3)');
    await expect.poll(async () => {
      const names = await tokenCells.allTextContents();
      return names.length > 0 && names.every((name) => name.trim() === session);
    }, { timeout: 10_000 }).toBe(true);
    const byToken = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON' }).click();
    const acted = JSON.parse(await streamText(await (await byToken).createReadStream())) as Array<{ action: string; tokenId: string }>;
    expect(acted.length).toBeGreaterThan(0);
    expect(acted.every((row) => row.tokenId === chosen && row.action.startsWith('token.'))).toBe(true);
    await c.screenshot(page, 'ops-05-audit-phone');
  });

  it("shows the plans and the owner's plan, and offers no upgrade a server without payments cannot sell", async () => {
    await open('/plan', 'Plan and usage');
    await page.getByRole('article', { name: 'Free' }).getByText('your plan').waitFor();
    // This server runs without plan limits: the usage is shown, and nothing can run out.
    await page.getByText('No plan limits apply to your account').waitFor();
    await page.getByText(/^\d+ \(unlimited\)$/).first().waitFor();
    const pro = page.getByRole('article', { name: 'Pro' });
    await pro.getByText('Payments are not set up on this server').waitFor();
    expect(await pro.getByRole('button', { name: 'Upgrade to Pro' }).count()).toBe(0);
    await c.screenshot(page, 'ops-06-plan-phone');
  });
});

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}
