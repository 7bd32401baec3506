// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * A token's policy and the account's webhooks, set through the console in a real browser: the
 * policy then holds the token's request for approval, and a webhook added here receives a test
 * event whose delivery the page lists. Both at a phone's width.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
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
    // The receiver listens on loopback, which only a server allowing private network calls may
    // reach. One failed attempt pauses a webhook here, so that the page shows a paused one.
    c = await startConsole({
      config: { allowPrivateNetwork: true, webhooks: { ...loadConfig({}).webhooks, pauseAfterFailures: 1, pauseAfterMs: 0 } },
    });
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
    // The classes the token's scopes can meet are listed, the edits beside the deletes; the others
    // (mail, devices, the vault) cannot apply to a memory token and are not offered.
    expect(await page.getByLabel(/memory\.write/).inputValue()).toBe('allow');
    const policy = await c.t.request('GET', `/api/v1/tokens/${created.body.data.id}/policy`, { token: owner.token });
    expect(policy.body.data.reachable).toEqual(['memory.write', 'memory.delete']);
    const region = page.getByRole('region', { name: 'Policy of helper' });
    expect(await region.getByRole('combobox').count()).toBe(2);
    expect(await region.getByLabel(/mail\.send/).count()).toBe(0);
    await region.getByText(/other actions are out of this token's scopes/).waitFor();
    await region.getByText(/approve it on the Home page/).waitFor();
    await rule.selectOption({ label: 'Ask me' });
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('status').filter({ hasText: 'Policy saved' }).waitFor();
    await c.screenshot(page, 'policy-01-token-policy-phone');

    const held = await c.t.request('DELETE', `/api/v1/memory/${memory.body.data.id}`, { token });
    expect(held.status).toBe(202);
    const kept = await c.t.request('GET', '/api/v1/memory', { token: owner.token });
    expect(kept.body.data.map((entry: { id: string }) => entry.id)).toContain(memory.body.data.id);
  });

  it('shows the exact held request, every field and nothing hidden, before the owner approves or denies', async () => {
    const created = await c.t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'mailer', scopes: ['services:write'] } });
    expect(created.status).toBe(201);
    const policy = await c.t.request('PUT', `/api/v1/tokens/${created.body.data.id}/policy`, { token: owner.token, body: { rules: { 'mail.send': 'ask' } } });
    expect(policy.status).toBe(200);
    const text = `Hello Ann,${' '.repeat(200)}and the rest\n${'long line '.repeat(600)}`;
    const held = await c.t.request('POST', '/api/v1/services/google/mail/send', {
      token: created.body.data.token,
      body: { to: 'ann@example.org', subject: 'Plans', body: text, bcc: 'spy@evil.example' },
    });
    expect(held.status).toBe(202);

    await page.goto('/');
    const card = page.getByRole('article', { name: 'Action by mailer' });
    await card.waitFor();
    // The summary names the blind copy; the exact request lists every field before the buttons.
    await card.getByRole('heading', { name: /bcc `spy@evil\.example`/ }).waitFor();
    const request = card.getByRole('region', { name: 'The exact request' });
    await request.getByText('POST /api/v1/services/google/mail/send').waitFor();
    await request.getByRole('row', { name: /^bcc spy@evil\.example$/ }).waitFor();
    await request.getByRole('row', { name: /^to ann@example\.org$/ }).waitFor();
    const body = request.getByRole('row', { name: /^body / });
    await body.getByText('Hello Ann,␠×200and the rest\\nlong line', { exact: false }).waitFor();
    await body.getByText(`(${(text.length).toLocaleString('en-US')} characters; the first 500 shown)`, { exact: false }).waitFor();
    const order = await card.evaluate((article) => {
      const all = Array.from((article as unknown as { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> }).querySelectorAll('section, button'));
      return all.map((node) => (node.textContent ?? '').slice(0, 20));
    });
    expect(order[0]).toMatch(/^The exact request/);
    expect(order.slice(1)).toEqual(['Approve', 'Deny']);
    await c.screenshot(page, 'approval-01-exact-request-phone');

    await card.getByRole('button', { name: 'Deny' }).click();
    await card.getByRole('status').filter({ hasText: 'Denied' }).waitFor();
    const decided = await c.t.request('GET', `/api/v1/approvals/${held.body.data.approvalId}`, { token: owner.token });
    expect(decided.body.data).toMatchObject({ status: 'denied', request: { bodyStatus: 'dropped', fields: [] } });
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

  it('shows a webhook the circuit breaker paused, and resumes it', async () => {
    const failing = await startWebhookReceiver();
    try {
      failing.answer(() => 500);
      const created = await c.t.request('POST', '/api/v1/webhooks', { token: owner.token, body: { url: failing.url, events: ['token.created'] } });
      expect(created.status).toBe(201);
      const id: string = created.body.data.id;
      await page.goto('/webhooks');
      const card = page.getByRole('article', { name: failing.url });
      await card.getByText('enabled', { exact: true }).waitFor();

      // Its one failed attempt pauses it; the page hears webhook.paused and shows it, unreloaded.
      await c.t.request('POST', `/api/v1/webhooks/${id}/test`, { token: owner.token });
      await card.getByText('paused', { exact: true }).waitFor();
      await card.getByRole('status').filter({ hasText: 'Paused after 1 failed attempt in a row' }).waitFor();
      await c.screenshot(page, 'webhooks-03-paused-phone');

      failing.answer(() => 204);
      await card.getByRole('button', { name: 'Resume' }).click();
      await card.getByText('enabled', { exact: true }).waitFor();
      await expect(card.getByRole('button', { name: 'Resume' }).count()).resolves.toBe(0);
      // The waiting delivery goes out at once.
      await failing.request(2);
      expect((await c.t.request('GET', `/api/v1/webhooks/${id}`, { token: owner.token })).body.data).toMatchObject({ status: 'active', consecutiveFailures: 0 });
      await c.t.request('DELETE', `/api/v1/webhooks/${id}`, { token: owner.token });
    } finally {
      await failing.close();
    }
  });
});
