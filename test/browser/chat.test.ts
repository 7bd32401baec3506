// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * The console's Chat page in a real browser: a reply names the model that wrote it (against the
 * local fake of OpenAI's API) or says that none did (no model configured), and lists its sources,
 * knowledge and memory apart, each a link that opens the document or the memory entry.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import type { Owner } from '../harness.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

const ALLERGY = 'My daughter Emma is allergic to peanuts.';
const JOURNAL = 'The greenhouse heater broke in March and was replaced by a paraffin heater.';

async function fill(c: ConsoleUnderTest, owner: Owner): Promise<{ document: string; entry: string }> {
  const document = await c.t.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: 'Garden journal', content: JOURNAL } });
  const entry = await c.t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: ALLERGY } });
  // A newer note about something else: not a source of an answer about Emma or the heater.
  await c.t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'The car is due for its service on Monday.' } });
  expect([200, 201]).toContain(document.status);
  expect(entry.status).toBe(201);
  return { document: document.body.data.id, entry: entry.body.data.id };
}

async function send(page: Page, message: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(message);
  await page.getByRole('button', { name: 'Send' }).click();
}

describe.runIf(BROWSER_TESTS)('the Chat page in Chromium', () => {
  describe('with a language model', () => {
    let fake: FakeOpenAI;
    let c: ConsoleUnderTest;
    let owner: Owner;
    let page: Page;
    let ids: { document: string; entry: string };
    beforeAll(async () => {
      fake = await startFakeOpenAI();
      c = await startConsole({ config: { llm: { baseUrl: `${fake.url}/v1`, apiKey: fake.apiKey, model: 'test-model', timeoutMs: 5000 } } });
      owner = await c.t.createOwner();
      ids = await fill(c, owner);
      ({ page } = await c.newPage());
      await signIn(page, owner.email, owner.password);
    }, 60_000);
    afterAll(async () => {
      await c?.close();
      await fake?.close();
    });
    afterEach(() => expect(c.problems).toEqual([]));

    it('names the model, lists knowledge and memory sources apart, and links each where it is kept', async () => {
      fake.reply = 'Emma is allergic to peanuts [2], and the heater was replaced [1].';
      await page.goto('/chat');
      await page.getByRole('heading', { level: 1, name: 'Chat' }).waitFor();
      await send(page, 'Is Emma allergic to anything, and what happened to the greenhouse heater?');

      const reply = page.getByRole('article', { name: 'Reply' });
      await reply.getByText('Emma is allergic to peanuts [2]').waitFor();
      await expect.poll(() => reply.locator('.answered-by').textContent()).toMatch(/Answered by the model test-model/);
      // The new conversation has its address and is listed.
      await page.waitForURL(/\/chat\?conversation=conv_/);
      await page.getByRole('region', { name: 'Conversations' }).getByRole('link', { name: /Is Emma allergic/ }).waitFor();

      const knowledge = reply.getByRole('list', { name: 'From the knowledge base' });
      const memory = reply.getByRole('list', { name: 'From memory' });
      expect(await knowledge.getByRole('listitem').allTextContents()).toEqual(['[1] Garden journal']);
      expect(await memory.getByRole('listitem').allTextContents()).toEqual([`[2] ${ALLERGY}`]);
      expect(await knowledge.getByRole('link').getAttribute('href')).toBe(`/knowledge?document=${ids.document}`);
      expect(await memory.getByRole('link').getAttribute('href')).toBe(`/memory?entry=${ids.entry}`);
      // What the model was sent: the entry about Emma, not the newest note.
      const system = fake.requests.at(-1)!.body.messages[0].content as string;
      expect(system).toContain(ALLERGY);
      expect(system).not.toContain('The car is due');
      await c.screenshot(page, 'chat-01-reply');

      // The memory source opens its entry on the Memory page.
      await memory.getByRole('link').click();
      await page.getByRole('heading', { level: 1, name: 'Memory' }).waitFor();
      const named = page.getByRole('region', { name: 'The entry linked here' });
      await named.getByText(ALLERGY).waitFor();
      await c.screenshot(page, 'chat-02-memory-source');

      // Back in the conversation (read as stored), the knowledge source opens its document.
      await page.goBack();
      await page.getByRole('article', { name: 'Reply' }).getByText('Emma is allergic to peanuts [2]').waitFor();
      await page.getByRole('article', { name: 'Reply' }).getByRole('list', { name: 'From the knowledge base' }).getByRole('link').click();
      await page.getByRole('region', { name: 'Document Garden journal' }).getByText(JOURNAL).waitFor();
    });

    it('continues the open conversation', async () => {
      fake.reply = 'Still peanuts.';
      await page.goto('/chat');
      await send(page, 'What is Emma allergic to?');
      await page.waitForURL(/\/chat\?conversation=conv_/);
      await page.getByText('Still peanuts.').waitFor();
      fake.reply = 'You are welcome.';
      await send(page, 'Thanks');
      await page.getByText('You are welcome.').waitFor();
      expect(await page.getByRole('article', { name: 'Reply' }).count()).toBe(2);
      // The second turn went to the same conversation, with the first as its history.
      expect(fake.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content).slice(1)).toEqual(['What is Emma allergic to?', 'Still peanuts.', 'Thanks']);
    });
  });

  describe('without a language model', () => {
    let c: ConsoleUnderTest;
    let owner: Owner;
    let page: Page;
    beforeAll(async () => {
      c = await startConsole();
      owner = await c.t.createOwner();
      await fill(c, owner);
      ({ page } = await c.newPage({ width: 390 }));
      await signIn(page, owner.email, owner.password);
    }, 60_000);
    afterAll(async () => c?.close());
    afterEach(() => expect(c.problems).toEqual([]));

    it('says that no model answered and cites the memory entry it quotes', async () => {
      await page.goto('/chat');
      await send(page, 'What is Emma allergic to?');
      const reply = page.getByRole('article', { name: 'Reply' });
      await reply.locator('.answered-by').getByText(/Answered without a language model/).waitFor();
      await reply.getByText(/No language model is configured/).waitFor();
      expect(await reply.getByRole('list', { name: 'From memory' }).getByRole('listitem').allTextContents()).toEqual([`[1] ${ALLERGY}`]);
      expect(await reply.getByRole('list', { name: 'From the knowledge base' }).count()).toBe(0);
      await c.screenshot(page, 'chat-03-retrieval-phone');
    });
  });
});
