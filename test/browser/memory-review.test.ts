// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * The owner's review of memory in Chromium: the list narrowed to one agent, an entry's
 * provenance ("why does my agent know this") and history opened, and everything that agent
 * wrote forgotten after a confirmation showing the count. Each result is checked through the
 * API as well as on the page.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../harness.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

// The page's global the callback run in the browser uses (this suite compiles without the DOM library).
declare const document: { documentElement: { scrollWidth: number } };
const PHONE = 390;

describe.runIf(BROWSER_TESTS)("the owner's review of memory in Chromium", () => {
  let c: ConsoleUnderTest;
  let owner: Owner;
  beforeAll(async () => {
    c = await startConsole();
    owner = await c.t.createOwner('Memory Reviewer');
  }, 60_000);
  afterAll(async () => c?.close());
  afterEach(() => expect(c.problems).toEqual([]));

  async function agentToken(name: string): Promise<{ token: string; id: string }> {
    const res = await c.t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name, scopes: ['memory'] } });
    expect(res.status).toBe(201);
    return { token: res.body.data.token, id: res.body.data.id };
  }

  async function remember(token: string, body: Record<string, unknown>): Promise<{ id: string }> {
    const res = await c.t.request('POST', '/api/v1/memory', { token, body });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  }

  it('filters by agent, opens where an entry came from and its history, and forgets that agent after confirming the count', async () => {
    const travel = await agentToken('Travel agent');
    const helper = await agentToken('Helper bot');
    const old = await remember(owner.token, { content: 'Home airport is Orly' });
    const correction = await remember(travel.token, {
      content: 'Home airport is Lyon Saint-Exupéry',
      kind: 'fact',
      tags: ['travel'],
      supersedes: [old.id],
      source: { kind: 'conversation', ref: 'chat-2026-11-02', quote: 'I moved to Lyon, I fly from Saint-Exupéry now' },
    });
    await remember(travel.token, { content: 'Prefers aisle seats', kind: 'preference' });
    await remember(helper.token, { content: 'Waters the basil on Sundays' });

    const { page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/memory');
    const list = page.getByRole('list', { name: 'Memory entries' });
    await list.getByRole('article').filter({ hasText: 'Waters the basil on Sundays' }).waitFor();
    // The replaced entry is not current: it is not listed.
    expect(await list.getByRole('article').count()).toBe(3);

    // Filter by agent: the select names each token with how many entries it wrote.
    const agent = page.getByRole('form', { name: 'Filter memory' }).getByLabel('Agent');
    await agent.selectOption({ label: '“Travel agent” (API token): 2 entries' });
    await page.waitForURL(new RegExp(`author=${travel.id}`));
    await list.getByRole('article').filter({ hasText: 'Prefers aisle seats' }).waitFor();
    await expect.poll(() => list.getByRole('article').count()).toBe(2);
    expect(await list.getByText('Waters the basil on Sundays').count()).toBe(0);

    // Where it came from: the token as it wrote, the channel, the writer's source and quote.
    const card = list.getByRole('article').filter({ hasText: 'Home airport is Lyon' });
    await card.getByText('Written by “Travel agent” (API token) through the API').waitFor();
    await card.getByRole('button', { name: 'Where it came from' }).click();
    const provenance = card.getByRole('region', { name: 'Where it came from' });
    await provenance.getByText(travel.id).waitFor();
    await provenance.getByText('chat-2026-11-02').waitFor();
    await provenance.getByText('I moved to Lyon, I fly from Saint-Exupéry now').waitFor();
    expect(await provenance.textContent()).toContain('a conversation');

    // Its history: the owner's entry it replaced, oldest first, then this one.
    await card.getByRole('button', { name: 'History' }).click();
    const chain = card.getByRole('list', { name: 'History of this entry, oldest first' });
    await chain.getByRole('listitem').nth(1).waitFor();
    expect(await chain.getByRole('listitem').allTextContents()).toEqual([
      expect.stringMatching(/^Home airport is Orly.*Written by you \(master token\).*replaced/),
      expect.stringMatching(/^Home airport is Lyon Saint-Exupéry.*This entry.*current$/),
    ]);
    await c.screenshot(page, '30-memory-provenance-history');

    // Forget everything this agent wrote: counted first, confirmed with the count.
    const forget = page.getByRole('region', { name: 'Forget what this agent wrote' });
    await forget.getByRole('button', { name: 'Forget everything this agent wrote…' }).click();
    const confirm = forget.getByRole('group', { name: 'Confirm forgetting' });
    await confirm.getByText('Forget 2 entries written by “Travel agent” (API token)? 1 entry of others that they replaced will be current again.', { exact: false }).waitFor();
    await c.screenshot(page, '31-memory-forget-confirm');
    // Nothing is deleted before the confirmation.
    expect((await c.t.request('GET', '/api/v1/memory', { token: owner.token, query: { author: travel.id } })).body.data).toHaveLength(2);
    await confirm.getByRole('button', { name: 'Yes, forget 2 entries' }).click();
    await forget.getByRole('status').getByText('Forgot 2 entries written by “Travel agent” (API token); 1 entry of others is current again.').waitFor();
    await page.getByText('No entry passes these filters.', { exact: false }).waitFor();

    const left = await c.t.request('GET', '/api/v1/memory', { token: owner.token, query: { include: 'history' } });
    expect(left.body.data.map((e: { content: string }) => e.content).sort()).toEqual(['Home airport is Orly', 'Waters the basil on Sundays']);
    expect(left.body.data.find((e: { id: string }) => e.id === old.id)).toMatchObject({ supersededBy: null });
    expect(left.body.data.some((e: { id: string }) => e.id === correction.id)).toBe(false);
    const audit = await c.t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'memory.forget_author' } });
    expect(audit.body.data[0]).toMatchObject({ targetId: travel.id, details: { deleted: 2, restored: 1 } });

    // Back to every author: the owner's entry is current again, the helper's untouched.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await list.getByRole('article').filter({ hasText: 'Home airport is Orly' }).waitFor();
    await expect.poll(() => list.getByRole('article').count()).toBe(2);
  });

  it('pins an entry and writes its correction, which replaces it, at a phone\'s width', async () => {
    await remember(owner.token, { content: 'Dentist is Dr. Moreau' });
    const { page } = await c.newPage({ width: PHONE });
    await signIn(page, owner.email, owner.password);
    await page.goto('/memory');
    const list = page.getByRole('list', { name: 'Memory entries' });
    const card = list.getByRole('article').filter({ hasText: 'Dentist is Dr. Moreau' });
    await card.getByRole('button', { name: 'Pin' }).click();
    await card.getByText('pinned', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Correct' }).click();
    await card.getByLabel('Correction').fill('Dentist is Dr. Petit');
    await card.getByRole('button', { name: 'Save the correction' }).click();
    // Until the correction is saved, the form's own text holds the new words: wait for it to go.
    await list.getByLabel('Correction').waitFor({ state: 'detached' });
    const newer = list.getByRole('article').filter({ hasText: 'Dentist is Dr. Petit' });
    await newer.getByText('pinned', { exact: true }).waitFor();
    expect(await list.getByText('Dentist is Dr. Moreau').count()).toBe(0);
    // The console wrote it: the owner's login session, through the console.
    await newer.getByText('Written by you (login session) through the console', { exact: false }).waitFor();
    await newer.getByRole('button', { name: 'Where it came from' }).click();
    await newer.getByRole('region', { name: 'Where it came from' }).waitFor();
    await c.screenshot(page, '32-memory-phone');
    // Nothing is wider than the screen: the filters and the provenance wrap.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE);

    const current = await c.t.request('GET', '/api/v1/memory', { token: owner.token, query: { pinned: true } });
    expect(current.body.data.map((e: { content: string }) => e.content)).toEqual(['Dentist is Dr. Petit']);
    const history = await c.t.request('GET', `/api/v1/memory/${current.body.data[0].id}/history`, { token: owner.token });
    expect(history.body.data.map((e: { content: string }) => e.content)).toEqual(['Dentist is Dr. Moreau', 'Dentist is Dr. Petit']);
  });
});
