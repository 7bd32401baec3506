// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * The owner's data in the console, in Chromium: a PDF uploaded with a visible progress bar and
 * found by search, and a persona written, saved and activated. Each result is checked through
 * the API as well as on the page.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pdfOf } from '../hostile-files.js';
import type { Owner } from '../harness.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

// The page's global the callback run in the browser uses (this suite compiles without the DOM library).
declare const document: { querySelector(selector: string): unknown };

/** A real one-page PDF holding `text`, padded with an unreferenced object to `bytes` so its upload takes a moment. */
function pdfWithText(text: string, bytes: number): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${bytes} >>\nstream\n${'0'.repeat(bytes)}\nendstream`,
  ]);
}

describe.runIf(BROWSER_TESTS)("the owner's data in Chromium", () => {
  let c: ConsoleUnderTest;
  let owner: Owner;
  beforeAll(async () => {
    c = await startConsole();
    owner = await c.t.createOwner('Data Owner');
  }, 60_000);
  afterAll(async () => c?.close());
  afterEach(() => expect(c.problems).toEqual([]));

  it('uploads a PDF with a visible progress bar, then finds it by a word inside it', async () => {
    const { context, page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/knowledge');
    await page.getByRole('heading', { level: 1, name: 'Knowledge base' }).waitFor();
    // A slow uplink (256 KB/s), so that the upload of 1.5 MB is seen in progress.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
    const pdf = pdfWithText('The zephyrquartz harvest report for the northern orchard', 1_500_000);
    await page.getByLabel('Upload a document').setInputFiles({ name: 'harvest-report.pdf', mimeType: 'application/pdf', buffer: pdf });
    const progress = page.getByRole('progressbar', { name: 'Uploading harvest-report.pdf' });
    await progress.waitFor();
    // It moves: some bytes are sent while others are still to go.
    await page.waitForFunction(() => {
      const bar = document.querySelector('progress[aria-label="Uploading harvest-report.pdf"]') as { value: number; max: number } | null;
      return bar !== null && bar.value > 0 && bar.value < bar.max;
    });
    await c.screenshot(page, '10-knowledge-uploading');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await progress.waitFor({ state: 'detached', timeout: 20_000 });
    // Its card gives the size of the file uploaded, not of the few words of text read from it.
    await page
      .getByRole('article', { name: 'harvest-report.pdf' })
      .getByText(`${(pdf.length / 1024 / 1024).toFixed(1)} MB file`, { exact: false })
      .waitFor();

    await page.getByLabel('Search the knowledge base').fill('zephyrquartz');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('article', { name: /harvest-report/ }).waitFor();
    await c.screenshot(page, '11-knowledge-found');
    const docs = await c.t.request('GET', '/api/v1/brain/knowledge-base', { token: owner.token });
    expect((docs.body.data as Array<{ title: string }>).map((doc) => doc.title)).toEqual([expect.stringMatching(/harvest-report/)]);
  });

  it('shows a new skill as inactive until it is activated', async () => {
    const created = await c.t.request('POST', '/api/v1/skills', {
      token: owner.token,
      body: { name: 'seed-planner', description: 'Plan the sowing', category: 'garden', scriptContent: '---\nname: seed-planner\n---\nList the seeds and when to sow them.' },
    });
    expect(created.status).toBe(201);
    const { page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/skills');
    const card = page.getByRole('article', { name: 'seed-planner' });
    await card.getByText('Inactive', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Activate' }).click();
    await card.getByText('Active', { exact: true }).waitFor();
    expect(await card.getByText('Inactive', { exact: true }).count()).toBe(0);
    const skill = await c.t.request('GET', `/api/v1/skills/${created.body.data.id}`, { token: owner.token });
    expect(skill.body.data.active).toBe(true);
  });

  it('adds a memory once: writing it again says it is already there and shows it once', async () => {
    const { context, page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/memory');
    const text = 'The spare bike key hangs by the back door.';
    for (const written of [text, '  the spare bike key hangs by the back door ']) {
      await page.getByLabel('New memory').fill(written);
      await page.getByRole('button', { name: 'Add memory' }).click();
      await page.getByLabel('New memory').and(page.locator(':not(:disabled)')).waitFor();
      await expect.poll(() => page.getByLabel('New memory').inputValue()).toBe('');
    }
    await page.getByRole('status').filter({ hasText: 'Already in memory' }).waitFor();
    await expect(page.getByRole('status').filter({ hasText: 'Already in memory' }).textContent()).resolves.toContain('written 2 times');
    await expect(page.getByText(text, { exact: true }).count()).resolves.toBe(1);
    const listed = (await c.t.request('GET', '/api/v1/memory', { token: owner.token })).body.data as Array<{ content: string; seenCount: number }>;
    expect(listed.filter((entry) => entry.content === text)).toEqual([expect.objectContaining({ seenCount: 2 })]);
    await context.close();
  });

  it('writes a persona in the soul editor, saves it and activates it', async () => {
    const { page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/personas');
    await page.getByRole('button', { name: 'New persona' }).click();
    await page.getByLabel('Name').fill('Gardener');
    await page.getByLabel('Soul').fill('You are a patient gardener.');
    await page.getByRole('button', { name: 'Create persona' }).click();

    // A new persona opens in the editor.
    const editor = page.getByRole('form', { name: 'Persona Gardener' });
    await editor.getByLabel('Soul').fill('You are a patient gardener.\nYou answer in short sentences and name plants by their Latin names.');
    await editor.getByRole('button', { name: 'Save' }).click();
    await editor.getByRole('status').waitFor();
    await editor.getByRole('button', { name: 'Activate' }).click();
    await editor.getByText('Active', { exact: true }).waitFor();
    await c.screenshot(page, '12-persona-active');
    // The list marks it active too.
    await page.getByRole('button', { name: 'Back to all personas' }).click();
    await page.getByRole('article', { name: 'Gardener' }).getByText('Active', { exact: true }).waitFor();

    const active = await c.t.request('GET', '/api/v1/personas/active', { token: owner.token });
    expect(active.status).toBe(200);
    expect(active.body.data).toMatchObject({ name: 'Gardener', soul_content: 'You are a patient gardener.\nYou answer in short sentences and name plants by their Latin names.' });
  });
});
