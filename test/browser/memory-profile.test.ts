// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * The pinned profile and memory tags, set through the console in a real browser: the owner pins,
 * orders (by the move buttons and by dragging) and unpins entries in the memory page's Profile
 * panel, and the gateway context follows; the token editor limits a token's memory to tags,
 * which the token then lives by.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../harness.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

describe.runIf(BROWSER_TESTS)('the pinned profile and memory tags in Chromium', () => {
  let c: ConsoleUnderTest;
  let owner: Owner;
  let page: Page;
  beforeAll(async () => {
    c = await startConsole();
    owner = await c.t.createOwner();
    ({ page } = await c.newPage());
    await signIn(page, owner.email, owner.password);
  }, 60_000);
  afterAll(async () => c?.close());
  afterEach(() => expect(c.problems).toEqual([]));

  const remember = async (content: string, extra: Record<string, unknown> = {}) => {
    const res = await c.t.request('POST', '/api/v1/memory', { token: owner.token, body: { content, ...extra } });
    expect(res.status).toBe(201);
    return res.body.data as { id: string };
  };
  const profile = async () => ((await c.t.request('GET', '/api/v1/memory/profile', { token: owner.token })).body.data as Array<{ content: string }>).map((e) => e.content);
  const contextLead = async (n: number) =>
    ((await c.t.request('GET', '/api/v1/gateway/context', { token: owner.token })).body.data.memory.entries as Array<{ content: string }>).slice(0, n).map((e) => e.content);

  it('pins, orders by buttons and by dragging, and unpins; the context follows the order', async () => {
    await remember('Name: Ada Lovelace', { kind: 'fact', pinned: true });
    await remember('Always answer in French', { kind: 'instruction' });
    await remember('Allergic to penicillin', { kind: 'fact' });
    await remember('An ordinary note');

    await page.goto('/memory');
    await page.getByRole('heading', { level: 2, name: 'Profile' }).waitFor();
    const panel = page.getByRole('region', { name: 'Profile' });
    await panel.getByRole('listitem', { name: /Name: Ada Lovelace/ }).waitFor();

    // Pin two more from the picker: each joins the profile last.
    for (const content of ['Always answer in French', 'Allergic to penicillin']) {
      await panel.getByLabel('Pin an entry').selectOption({ label: content });
      await panel.getByRole('button', { name: 'Pin', exact: true }).click();
      await panel.getByRole('listitem', { name: new RegExp(content) }).waitFor();
    }
    expect(await profile()).toEqual(['Name: Ada Lovelace', 'Always answer in French', 'Allergic to penicillin']);
    await c.screenshot(page, 'memory-profile-01-pinned');

    // Move the instruction to the top with the keyboard's way.
    await panel.getByRole('button', { name: 'Move up: Always answer in French' }).click();
    await expect.poll(profile).toEqual(['Always answer in French', 'Name: Ada Lovelace', 'Allergic to penicillin']);
    expect(await contextLead(3)).toEqual(['Always answer in French', 'Name: Ada Lovelace', 'Allergic to penicillin']);

    // Drag the allergy onto the first place.
    await panel.getByRole('listitem', { name: /Allergic to penicillin/ }).dragTo(panel.getByRole('listitem', { name: /Pinned 1:/ }));
    await expect.poll(profile).toEqual(['Allergic to penicillin', 'Always answer in French', 'Name: Ada Lovelace']);
    await panel.getByRole('listitem', { name: /Pinned 1: Allergic to penicillin/ }).waitFor();
    expect(await contextLead(3)).toEqual(['Allergic to penicillin', 'Always answer in French', 'Name: Ada Lovelace']);

    // Unpin the name: it leaves the profile and the panel, and can be pinned again.
    await panel.getByRole('button', { name: 'Unpin: Name: Ada Lovelace' }).click();
    await expect.poll(profile).toEqual(['Allergic to penicillin', 'Always answer in French']);
    await expect.poll(() => panel.getByRole('listitem', { name: /Name: Ada Lovelace/ }).count()).toBe(0);
    await panel.getByLabel('Pin an entry').getByRole('option', { name: 'Name: Ada Lovelace' }).waitFor({ state: 'attached' });
    await c.screenshot(page, 'memory-profile-02-ordered');
  });

  it('limits a new token to memory tags in the token editor, changes them, and the token sees only its tags', async () => {
    await remember('Quarterly report due Friday', { tags: ['work'] });
    await remember('Birthday party on Sunday', { tags: ['family'] });

    await page.goto('/agents');
    await page.getByRole('heading', { level: 1, name: 'Agents and tokens' }).waitFor();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByLabel('Name', { exact: true }).fill('work agent');
    await page.getByRole('checkbox', { name: /^memory/ }).check();
    await page.getByLabel('Memory tags (optional)').fill('Work');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const secret = await page.getByRole('region', { name: 'New token' }).getByRole('textbox').inputValue();

    const caps = await c.t.request('GET', '/api/v1/tokens/me/capabilities', { token: secret });
    expect(caps.body.data.memoryTags).toEqual(['work']);
    const seen = await c.t.request('GET', '/api/v1/memory', { token: secret });
    expect(seen.body.data.map((e: { content: string }) => e.content)).toEqual(['Quarterly report due Friday']);

    const card = page.getByRole('article', { name: 'work agent' });
    await card.getByText('work', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Memory tags for work agent' }).click();
    const field = card.getByLabel('Memory tags (optional)');
    expect(await field.inputValue()).toBe('work');
    await field.fill('work, family');
    await card.getByRole('button', { name: 'Save memory tags' }).click();
    await card.getByText('family', { exact: true }).waitFor();
    const both = await c.t.request('GET', '/api/v1/memory', { token: secret });
    expect(both.body.data.map((e: { content: string }) => e.content).sort()).toEqual(['Birthday party on Sunday', 'Quarterly report due Friday']);
    await c.screenshot(page, 'memory-profile-03-token-tags');

    // Emptied, the limit is lifted: the token reaches all memory again.
    await page.getByRole('button', { name: 'Memory tags for work agent' }).click();
    await card.getByLabel('Memory tags (optional)').fill('');
    await card.getByRole('button', { name: 'Save memory tags' }).click();
    // Exactly: the open editor's help text says "all memory" too, before the change is saved.
    await card.getByText('all memory', { exact: true }).waitFor();
    expect((await c.t.request('GET', '/api/v1/tokens/me/capabilities', { token: secret })).body.data.memoryTags).toBeNull();
  });
});
