// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * Bringing memory from another tool in the console, in Chromium: a file of the MCP memory
 * server previewed (a dry run that changes nothing), then imported; the entries appear on the
 * memory page and, through the API, carry the import channel.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../harness.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/memory-import/mcp-memory.json');

describe.runIf(BROWSER_TESTS)('bringing memory from another tool in Chromium', () => {
  let c: ConsoleUnderTest;
  let owner: Owner;
  beforeAll(async () => {
    c = await startConsole();
    owner = await c.t.createOwner('Import Owner');
  }, 60_000);
  afterAll(async () => c?.close());
  afterEach(() => expect(c.problems).toEqual([]));

  const stored = async () => (await c.t.request('GET', '/api/v1/memory', { token: owner.token, query: { limit: '50' } })).body.data as Array<{ content: string; author: { channel: string } }>;

  it('previews a file, changing nothing, then imports it and lists the entries', async () => {
    const { page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/memory');
    const form = page.getByRole('form', { name: 'Bring memory from another tool' });
    await form.waitFor();
    await form.getByLabel('From').selectOption('mcp-memory');
    await form.getByLabel('File').setInputFiles({ name: 'memory.json', mimeType: 'application/json', buffer: readFileSync(FIXTURE) });
    await form.getByRole('button', { name: 'Preview' }).click();
    await form.getByText('Would add 6 entries; skip 1.').waitFor();
    await form.getByRole('list', { name: 'Entries to add' }).getByText('default_user (person): Lives in Lyon').waitFor();
    await c.screenshot(page, '40-memory-import-preview');
    expect(await stored()).toEqual([]);

    await form.getByRole('button', { name: 'Import 6 entries' }).click();
    await form.getByText('Imported 6 entries, skipped 1.').waitFor();
    await page.getByRole('region', { name: 'Entries' }).getByText('default_user works on Hearth').waitFor();
    const entries = await stored();
    expect(entries).toHaveLength(6);
    expect(entries.every((entry) => entry.author.channel === 'import')).toBe(true);
  });

  it('pasted text with a mistake answers the reason on the page, and nothing is imported', async () => {
    const other = await c.t.createOwner('Import Mistake Owner');
    const { page } = await c.newPage();
    await signIn(page, other.email, other.password);
    await page.goto('/memory');
    const form = page.getByRole('form', { name: 'Bring memory from another tool' });
    await form.getByLabel('From').selectOption('mem0');
    await form.getByLabel('Or paste the text').fill('{"results": [ {"memory": "Likes tea",} ]}');
    await form.getByRole('button', { name: 'Preview' }).click();
    await form.getByRole('alert').getByText(/not valid JSON at line 1/).waitFor();
  });
});
