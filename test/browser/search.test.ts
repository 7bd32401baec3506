// @engine-independent: the console is the same on either engine and the API under it is tested on both (test/browser/browser.ts)
/**
 * Search in the console, in Chromium: memory and the knowledge base searched the way agents
 * search them (`GET /api/v1/search`, words and meaning), each hit showing the words found marked
 * exactly where the API marks them, a hit found by meaning said so, a passage linked to its
 * document opened at the passage; and the search status with its progress while items wait for
 * their vectors, and an embedder's failure in plain words. The built-in encoder makes the
 * vectors, as on a server with nothing configured; the indexer is run by the test (a test app
 * does not start it), so progress is seen before and after.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import type { Owner } from '../harness.js';
import { BROWSER_TESTS, signIn, startConsole, type ConsoleUnderTest } from './browser.js';

// The page's globals the callbacks run in the browser use (this suite compiles without the DOM library).
declare const document: { title: string; querySelectorAll(selector: string): { length: number } };
declare const window: { innerHeight: number };

interface Hit {
  id: string;
  text: string;
  matched: 'words' | 'meaning' | 'both';
  marks: Array<[number, number]>;
  document?: { id: string; title: string; headingPath: string[]; start: number; end: number };
}

/** The API's own answer to a search, to hold the page to. */
async function apiSearch(c: ConsoleUnderTest, owner: Owner, q: string, types: string): Promise<Hit[]> {
  const answer = await c.t.request('GET', '/api/v1/search', { token: owner.token, query: { q, types, limit: '30' } });
  expect(answer.status).toBe(200);
  return answer.body.data as Hit[];
}

/**
 * The API's answer once it no longer changes. A search waits a moment for its query's vector and
 * answers by words alone when it comes later (the vector is then kept for the next search of the
 * same words), so the answer is asked until two in a row agree; the page, asked next, gets the same.
 */
async function settledSearch(c: ConsoleUnderTest, owner: Owner, q: string, types: string): Promise<Hit[]> {
  let previous = '';
  let hits: Hit[] = [];
  await expect
    .poll(
      async () => {
        hits = await apiSearch(c, owner, q, types);
        const answer = JSON.stringify(hits);
        const same = answer === previous;
        previous = answer;
        return same;
      },
      { timeout: 20_000, interval: 200 },
    )
    .toBe(true);
  return hits;
}

/** The words the API marks in a hit, in order (touching or overlapping spans joined, as a page shows them). */
function markedWords(hit: Hit): string[] {
  const spans = [...hit.marks].sort((a, b) => a[0] - b[0]);
  const joined: Array<[number, number]> = [];
  for (const [start, end] of spans) {
    const last = joined.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else joined.push([start, end]);
  }
  return joined.map(([start, end]) => hit.text.slice(start, end));
}

/**
 * Each result card shows its hit's text, its marks where the API put them, and whether it matched
 * by meaning. Read until it does: a page keeps the answer before in view while it asks again.
 */
async function expectCardsToShow(results: Locator, hits: Hit[]): Promise<void> {
  const expected = hits.map((hit) => ({ text: hit.text, marks: markedWords(hit), byMeaning: hit.matched === 'words' ? 0 : 1 }));
  const shown = async () => {
    const cards = results.getByRole('article');
    const all = [];
    for (let index = 0; index < (await cards.count()); index++) {
      const card = cards.nth(index);
      all.push({
        text: await card.locator('.hit-text').textContent(),
        marks: await card.locator('.hit-text mark').allTextContents(),
        byMeaning: await card.getByText(/^Matched by (meaning|words and meaning)$/).count(),
      });
    }
    return all;
  };
  await expect.poll(shown, { timeout: 10_000 }).toEqual(expected);
}

async function search(page: Page, label: string, words: string): Promise<void> {
  await page.getByLabel(label).fill(words);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
}

describe.runIf(BROWSER_TESTS)('search in the console, in Chromium', () => {
  let c: ConsoleUnderTest;
  beforeAll(async () => {
    // The built-in encoder, as a server with nothing configured has it.
    c = await startConsole({ config: { embeddings: loadConfig({ EMBEDDINGS: 'builtin' }).embeddings } });
  }, 60_000);

  /** A new owner holding these memory entries. */
  async function ownerWith(name: string, entries: string[]): Promise<Owner> {
    const owner = await c.t.createOwner(name);
    for (const content of entries) expect((await c.t.request('POST', '/api/v1/memory', { token: owner.token, body: { content } })).status).toBe(201);
    return owner;
  }
  afterAll(async () => c?.close());
  afterEach(() => expect(c.problems).toEqual([]));

  it('shows the indexing progress while entries wait for their vectors, and its end', async () => {
    const owner = await ownerWith('Indexing Owner', ['My daughter Emma is allergic to peanuts', 'I prefer aisle seats on flights', 'My dentist is Dr. Patel']);
    const before = (await c.t.request('GET', '/api/v1/search/status', { token: owner.token })).body.data;
    expect(before).toMatchObject({ embedder: { kind: 'builtin', model: 'universal-sentence-encoder-lite' }, pending: 3, indexed: 0 });

    const { page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/memory');
    const status = page.getByRole('region', { name: 'Search status' });
    await status.getByText('universal-sentence-encoder-lite').waitFor();
    await status.getByText('the built-in encoder', { exact: false }).waitFor();
    const progress = status.getByRole('progressbar', { name: 'Indexing for search by meaning' });
    await progress.waitFor();
    expect(await progress.getAttribute('max')).toBe('3');
    expect(await progress.getAttribute('value')).toBe('0');
    await status.getByText('0 of 3 items (3 waiting)', { exact: false }).waitFor();
    await c.screenshot(page, '30-search-status-indexing');

    // The indexer embeds them; the page, asking again while items wait, shows the end by itself.
    await c.t.container.searchIndexer.runNow();
    await progress.waitFor({ state: 'detached', timeout: 40_000 });
    await status.getByText('All 3 items', { exact: false }).waitFor();
    const after = (await c.t.request('GET', '/api/v1/search/status', { token: owner.token })).body.data;
    expect(after).toMatchObject({ pending: 0, indexed: 3, lastError: null });
    await status.getByText(after.embedder.state === 'ready' ? 'ready' : /^idle/).waitFor();
    await c.screenshot(page, '31-search-status-indexed');
  }, 90_000);

  it('searches memory ranked, marks the words found, says what matched by meaning, and shows markup as text', async () => {
    const owner = await ownerWith('Searching Owner', [
      'My daughter Emma is allergic to peanuts',
      'I prefer aisle seats on flights',
      'My dentist is Dr. Patel',
      'Pantry: <img src="x" onerror="document.title=\'pwned\'"> two jars of <b>peanut</b> butter',
    ]);
    await c.t.container.searchIndexer.runNow();
    const { page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/memory');
    const results = page.getByRole('list', { name: 'Search results, best first' });

    const words = await settledSearch(c, owner, 'peanuts Emma', 'memory');
    await search(page, 'Search memory', 'peanuts Emma');
    await page.getByRole('heading', { name: 'Entries matching “peanuts Emma”' }).waitFor();
    await results.waitFor();
    // The entry holding both words comes first, both marked.
    expect(words[0]!.text).toBe('My daughter Emma is allergic to peanuts');
    await expectCardsToShow(results, words);
    expect(await results.getByRole('article').first().locator('mark').allTextContents()).toEqual(['Emma', 'peanuts']);
    // The markup in an entry is its text: shown as written, never run.
    const pantry = results.getByRole('article').filter({ hasText: 'Pantry:' });
    expect(await pantry.locator('.hit-text').textContent()).toContain('<img src="x"');
    expect(await page.evaluate(() => document.querySelectorAll('main img, main b').length)).toBe(0);
    expect(await page.evaluate(() => document.title)).not.toBe('pwned');
    await c.screenshot(page, '32-memory-search-words');

    // A question sharing no word with the note finds it by its meaning, and says so.
    const meaning = await settledSearch(c, owner, 'teeth doctor', 'memory');
    expect(meaning.find((hit) => hit.text === 'My dentist is Dr. Patel')?.matched).toBe('meaning');
    await search(page, 'Search memory', 'teeth doctor');
    await page.getByRole('heading', { name: 'Entries matching “teeth doctor”' }).waitFor();
    const dentist = results.getByRole('article').filter({ hasText: 'My dentist is Dr. Patel' });
    await dentist.getByText('Matched by meaning').waitFor();
    await expectCardsToShow(results, meaning);
    await c.screenshot(page, '33-memory-search-meaning');

    // The search is in the address: the back button returns to the first one.
    expect(new URL(page.url()).searchParams.get('q')).toBe('teeth doctor');
    await page.goBack();
    await page.getByRole('heading', { name: 'Entries matching “peanuts Emma”' }).waitFor();
    expect(await page.getByLabel('Search memory').inputValue()).toBe('peanuts Emma');

    // An entry edited from its hit is saved whole, and the search is asked again.
    const first = results.getByRole('article').first();
    await first.getByRole('button', { name: 'Edit' }).click();
    await first.getByLabel('Edit memory').fill('My daughter Emma is allergic to peanuts and to cashews');
    await first.getByRole('button', { name: 'Save' }).click();
    // Until it is saved, the form's own text holds the new words: wait for the form to go.
    await results.getByLabel('Edit memory').waitFor({ state: 'detached' });
    // (Its place may change: until the indexer embeds the new text, it ranks by its words.)
    await results.getByRole('article').filter({ hasText: 'allergic to peanuts and to cashews' }).waitFor();
    await expectCardsToShow(results, await settledSearch(c, owner, 'peanuts Emma', 'memory'));

    // "Show all" lists every entry again, newest first.
    await page.getByRole('button', { name: 'Show all' }).click();
    await page.getByRole('heading', { name: 'Entries', exact: true }).waitFor();
    await page.getByRole('article').filter({ hasText: 'I prefer aisle seats on flights' }).waitFor();
    expect(await page.getByRole('article').count()).toBe(4);
  }, 90_000);

  it('says so when nothing matches, in words a person reads', async () => {
    // An owner with nothing stored: no entry at all can match.
    const other = await c.t.createOwner('Empty Owner');
    const { page } = await c.newPage();
    await signIn(page, other.email, other.password);
    await page.goto('/memory?q=zanzibar');
    await page.getByText('Nothing in memory matches “zanzibar”.', { exact: false }).waitFor();
    await page.goto('/knowledge?q=zanzibar');
    await page.getByText('No passage of the knowledge base matches “zanzibar”.', { exact: false }).waitFor();
    await c.screenshot(page, '34-search-nothing-found');
  }, 60_000);

  it('searches the knowledge base by passage: document title, headings, marked words, and a link that opens the document at the passage', async () => {
    const content = [
      '# Garden handbook',
      '',
      'How the garden behind the house is kept, season by season.',
      '',
      '## Watering',
      '',
      '### Tomatoes',
      '',
      'Water the tomatoes at dawn, at the foot of each plant, never on the leaves.',
      '',
      '### Roses',
      '',
      'Roses want a deep soak once a week rather than a little every day.',
      '',
      '## Pests',
      '',
      'Aphids on the roses are washed off with a jet of water; ladybirds do the rest.',
      '',
      ...Array.from({ length: 40 }, (_, i) => `Note ${i + 1}: the compost heap is turned on the first Sunday of the month and kept moist.`),
    ].join('\n');
    const owner = await c.t.createOwner('Gardening Owner');
    const created = await c.t.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: 'Garden handbook', content, source: 'test' } });
    expect(created.status).toBe(200);
    await c.t.container.searchIndexer.runNow();

    const hits = await settledSearch(c, owner, 'tomatoes dawn', 'knowledge');
    const { page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/knowledge');
    await search(page, 'Search the knowledge base', 'tomatoes dawn');
    await page.getByRole('heading', { name: 'Passages matching “tomatoes dawn”' }).waitFor();
    const results = page.getByRole('list', { name: 'Search results, best first' });
    await results.waitFor();
    expect(hits.length).toBeGreaterThan(0);
    await expectCardsToShow(results, hits);
    const best = hits[0]!;
    expect(best.document).toMatchObject({ id: created.body.data.id, title: 'Garden handbook' });
    expect(markedWords(best).map((word) => word.toLowerCase())).toEqual(expect.arrayContaining(['tomatoes', 'dawn']));
    const card = results.getByRole('article').first();
    expect(await card.getByRole('heading', { level: 3 }).textContent()).toBe('Garden handbook');
    const headings = card.getByLabel('Under the headings');
    if (best.document!.headingPath.length > 0) expect(await headings.textContent()).toBe(best.document!.headingPath.join(' › '));
    else expect(await headings.count()).toBe(0);
    await c.screenshot(page, '35-knowledge-passages');

    // The title links to the document, opened with the passage marked and in view.
    await card.getByRole('link', { name: 'Garden handbook' }).click();
    const view = page.getByRole('region', { name: 'Document Garden handbook' });
    const passage = view.locator('mark.passage-mark');
    await passage.waitFor();
    expect(await passage.textContent()).toBe(content.slice(best.document!.start, best.document!.end));
    // Scrolled into view after the render that shows it.
    const height = await page.evaluate(() => window.innerHeight);
    await expect.poll(async () => {
      const box = await passage.boundingBox();
      return box !== null && box.y < height && box.y + box.height > 0;
    }, { timeout: 10_000 }).toBe(true);
    const address = new URL(page.url()).searchParams;
    expect(Object.fromEntries(address)).toEqual({ q: 'tomatoes dawn', document: best.document!.id, from: String(best.document!.start), to: String(best.document!.end) });
    await c.screenshot(page, '36-knowledge-document-at-passage');

    // Back returns to the passages; the document closes.
    await page.goBack();
    await view.waitFor({ state: 'detached' });
    await results.waitFor();
  }, 90_000);
});

describe.runIf(BROWSER_TESTS)('search in the console with an embeddings endpoint that refuses', () => {
  let c: ConsoleUnderTest;
  let fake: FakeOpenAI;
  let owner: Owner;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    const embeddings = loadConfig({ EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: `${fake.url}/v1`, EMBEDDINGS_MODEL: 'text-embedding-3-small', EMBEDDINGS_API_KEY: 'sk-not-the-right-key' }).embeddings;
    c = await startConsole({ config: { embeddings } });
    owner = await c.t.createOwner('Owner With A Wrong Key');
  }, 60_000);
  afterAll(async () => {
    await c?.close();
    await fake?.close();
  });
  afterEach(() => expect(c.problems).toEqual([]));

  it('says plainly that search by meaning failed and why, and still finds by words', async () => {
    await c.t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'The boiler service is due in March' } });
    // The endpoint refuses the key: the indexer records why, and search falls back to words.
    await c.t.container.searchIndexer.runNow();
    const status = (await c.t.request('GET', '/api/v1/search/status', { token: owner.token })).body.data;
    expect(status.embedder).toMatchObject({ kind: 'openai', model: 'text-embedding-3-small', state: 'failed' });
    expect(status.lastError).toEqual(expect.any(String));

    const { page } = await c.newPage();
    await signIn(page, owner.email, owner.password);
    await page.goto('/memory');
    const panel = page.getByRole('region', { name: 'Search status' });
    await panel.getByText('Search by words only').waitFor();
    await panel.getByText('text-embedding-3-small').waitFor();
    await panel.getByText('Search by meaning is unavailable: searches use words only until it recovers.', { exact: false }).waitFor();
    expect(await panel.locator('.error').textContent()).toContain(status.lastError);
    expect(await panel.locator('.error').textContent()).not.toContain('sk-not-the-right-key');

    await search(page, 'Search memory', 'boiler');
    const results = page.getByRole('list', { name: 'Search results, best first' });
    await results.waitFor();
    await expectCardsToShow(results, await settledSearch(c, owner, 'boiler', 'memory'));
    expect(await results.getByRole('article').first().locator('mark').allTextContents()).toEqual(['boiler']);
    await c.screenshot(page, '37-search-status-failed');
  }, 60_000);
});
