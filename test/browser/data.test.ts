// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * Export and import in the console, in Chromium: one account exported with its progress and
 * downloaded; the archive dropped into another account's page, its dry run shown, then applied;
 * each result checked through the API as well as on the page.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../harness.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

describe.runIf(BROWSER_TESTS)('export and import in Chromium', () => {
  let c: ConsoleUnderTest;
  let from: Owner;
  let to: Owner;
  beforeAll(async () => {
    c = await startConsole();
    from = await c.t.createOwner('Exporting Owner');
    to = await c.t.createOwner('Importing Owner');
    for (const content of ['Grows tomatoes on the balcony', 'Speaks Portuguese']) {
      expect((await c.t.request('POST', '/api/v1/memory', { token: from.token, body: { content } })).status).toBe(201);
    }
  }, 60_000);
  afterAll(async () => c?.close());
  afterEach(() => expect(c.problems).toEqual([]));

  it('exports with a progress report and a download, then imports the archive elsewhere after showing its dry run', async () => {
    const exporting = await c.newPage();
    await signIn(exporting.page, from.email, from.password);
    await exporting.page.goto('/data');
    await exporting.page.getByRole('heading', { level: 1, name: 'Export and import' }).waitFor();
    await exporting.page.getByLabel('Your account password').fill(from.password);
    await exporting.page.getByRole('button', { name: 'Start export' }).click();
    await exporting.page.getByText('The archive is ready').waitFor({ timeout: 20_000 });
    await c.screenshot(exporting.page, '40-data-exported');
    const [download] = await Promise.all([exporting.page.waitForEvent('download'), exporting.page.getByRole('button', { name: 'Download the archive' }).click()]);
    const file = await download.path();
    const archive = readFileSync(file);
    expect(archive.subarray(0, 2).toString('latin1')).toBe('PK');

    const importing = await c.newPage();
    await signIn(importing.page, to.email, to.password);
    await importing.page.goto('/data');
    await importing.page.getByLabel('Choose an archive').setInputFiles({ name: 'account.zip', mimeType: 'application/zip', buffer: archive });
    await importing.page.getByRole('heading', { name: 'What importing account.zip would do' }).waitFor({ timeout: 20_000 });
    await importing.page.getByRole('row', { name: /memory_entries 2 0 0 0/ }).waitFor();
    await c.screenshot(importing.page, '41-data-dry-run');
    // The dry run changed nothing.
    expect((await c.t.request('GET', '/api/v1/memory', { token: to.token })).body.data).toHaveLength(0);
    // The import is followed as it applies: its answer is the progress as server-sent events.
    const [answer] = await Promise.all([
      importing.page.waitForResponse((res) => new URL(res.url()).pathname === '/api/v1/import'),
      importing.page.getByRole('button', { name: 'Apply the import' }).click(),
    ]);
    expect(answer.headers()['content-type']).toMatch(/^text\/event-stream/);
    await importing.page.getByText('Imported.').waitFor({ timeout: 20_000 });
    const memory = (await c.t.request('GET', '/api/v1/memory', { token: to.token })).body.data as Array<{ content: string }>;
    expect(memory.map((entry) => entry.content).sort()).toEqual(['Grows tomatoes on the balcony', 'Speaks Portuguese']);
  }, 60_000);
});
