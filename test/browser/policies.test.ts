/**
 * A token's policy and the account's webhooks, set through the console in a real browser: the
 * policy then holds the token's request for approval, and a webhook added here receives a test
 * event whose delivery the page lists. Both at a phone's width.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.js';
import type { Owner } from '../harness.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

// The page's globals the callbacks run in the browser use (this suite compiles without the DOM library).
declare const document: { documentElement: { scrollWidth: number } };

const PHONE = 375;

describe.runIf(BROWSER_TESTS)('policies and webhooks in Chromium', () => {
  let c: ConsoleUnderTest;
  let owner: Owner;
  let page: Page;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    // The receiver listens on loopback, which only a server allowing private network calls may reach.
    c = await startConsole({ config: { allowPrivateNetwork: true } });
    receiver = await startWebhookReceiver();
    owner = await c.t.createOwner();
    ({ page } = await c.newPage({ width: PHONE }));
    await signIn(page, owner.email, owner.password);
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await c?.close();
  });
  afterEach(async () => {
    expect(c.problems).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE);
  });

  it("sets a token's policy to ask before deleting memories, which then holds the token's delete", async () => {
    const created = await c.t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'helper', scopes: ['memory'] } });
    expect(created.status).toBe(201);
    const token: string = created.body.data.token;
    const memory = await c.t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'keep me until I say so' } });
    expect(memory.status).toBe(201);

    await page.goto('/agents');
    await page.getByRole('heading', { level: 1, name: 'Agents and tokens' }).waitFor();
    await page.getByRole('button', { name: 'Policy for helper' }).click();
    const rule = page.getByLabel(/memory\.delete/);
    expect(await rule.inputValue()).toBe('allow');
    // Every class the API answers is listed, the edits beside the deletes.
    expect(await page.getByLabel(/memory\.write/).inputValue()).toBe('allow');
    const policy = await c.t.request('GET', `/api/v1/tokens/${created.body.data.id}/policy`, { token: owner.token });
    expect(await page.getByRole('region', { name: 'Policy of helper' }).getByRole('combobox').count()).toBe(Object.keys(policy.body.data.rules).length);
    await rule.selectOption({ label: 'Ask me' });
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('status').filter({ hasText: 'Policy saved' }).waitFor();
    await c.screenshot(page, 'policy-01-token-policy-phone');

    const held = await c.t.request('DELETE', `/api/v1/memory/${memory.body.data.id}`, { token });
    expect(held.status).toBe(202);
    const kept = await c.t.request('GET', '/api/v1/memory', { token: owner.token });
    expect(kept.body.data.map((entry: { id: string }) => entry.id)).toContain(memory.body.data.id);
  });

  it('adds a webhook with its secret shown once, sends a test event and lists its delivery', async () => {
    await page.goto('/webhooks');
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No webhooks yet').waitFor();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByLabel('URL', { exact: true }).fill(receiver.url);
    await page.getByRole('checkbox', { name: 'token.created' }).check();
    await c.screenshot(page, 'webhooks-01-add-phone');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = await page.getByRole('region', { name: 'Signing secret' }).getByRole('textbox').inputValue();
    expect(secret).toMatch(/^whsec_/);
    const card = page.getByRole('article', { name: receiver.url });
    await card.getByText('token.created', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await expect(page.getByRole('region', { name: 'Signing secret' }).count()).resolves.toBe(0);

    const before = receiver.received.length;
    await card.getByRole('button', { name: 'Send a test event' }).click();
    const received = await receiver.request(before + 1);
    expect(JSON.parse(received.body)).toMatchObject({ type: 'webhook.test' });
    const deliveries = card.getByRole('region', { name: `Deliveries to ${receiver.url}` });
    await deliveries.getByText('webhook.test', { exact: true }).first().waitFor();
    // The page may have read the delivery before its attempt ended; reading again shows the attempt.
    await expect
      .poll(async () => {
        await deliveries.getByRole('button', { name: 'Refresh' }).click();
        return deliveries.getByText('delivered', { exact: true }).count();
      })
      .toBeGreaterThan(0);
    await deliveries.getByRole('cell', { name: '204', exact: true }).waitFor();
    await c.screenshot(page, 'webhooks-02-delivery-phone');

    await card.getByRole('button', { name: 'Disable' }).click();
    await card.getByText('disabled', { exact: true }).waitFor();
    await card.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    await card.getByRole('button', { name: 'Yes, delete' }).click();
    await card.waitFor({ state: 'detached' });
    expect((await c.t.request('GET', '/api/v1/webhooks', { token: owner.token })).body.data).toEqual([]);
  });
});
