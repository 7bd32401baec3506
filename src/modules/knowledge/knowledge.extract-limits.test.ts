/**
 * The EXTRACT_* limits through the upload route: each cap answers 413 PAYLOAD_TOO_LARGE naming
 * its setting, a worker stopped for time or memory answers the same (never 500) and the next
 * upload is read by a new worker, a full queue answers 429 with Retry-After, and one account
 * cannot take the whole pool from the others.
 * (test/extract.e2e.test.ts shows the same files against a running server, with its memory.)
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/harness.js';
import { docxInflatingTo, pdfInflatingContent, pdfRepeatingOnePage } from '../../../test/hostile-files.js';
import { childPids } from '../../../test/procfs.js';

const UPLOAD = '/api/v1/brain/knowledge-base/upload';
const MiB = 1024 * 1024;
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

function form(filename: string, contentType: string, data: Buffer) {
  const boundary = `----limits-${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function upload(t: TestApp, token: string, filename: string, contentType: string, data: Buffer) {
  const { body, headers } = form(filename, contentType, data);
  return t.request('POST', UPLOAD, { token, body, headers });
}

/** The command lines of this process's children: the parsing workers while they run. */
function childCommands(): string[] {
  return childPids().map((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      return '';
    }
  });
}

describe('extraction caps at their defaults', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp();
    token = (await t.createOwner()).token;
  });
  afterAll(async () => t.close());

  it('a PDF with more pages than EXTRACT_MAX_PAGES (2000) is refused before any page is read', async () => {
    const res = await upload(t, token, 'many.pdf', 'application/pdf', pdfRepeatingOnePage(2001));
    expect(expectError(res, 413, 'PAYLOAD_TOO_LARGE').message).toBe(
      'many.pdf has 2001 pages; at most 2000 are read (EXTRACT_MAX_PAGES). Split it into smaller files',
    );
    // At the cap it is read.
    const ok = await upload(t, token, 'just-enough.pdf', 'application/pdf', pdfRepeatingOnePage(2000, 'Page text'));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data.content.split('Page text').length - 1).toBe(2000);
  });

  it('a .docx whose XML inflates to 100 MiB is refused by EXTRACT_MAX_INFLATED_BYTES (32 MiB)', async () => {
    const res = await upload(t, token, 'big.docx', DOCX_TYPE, docxInflatingTo(100));
    expect(expectError(res, 413, 'PAYLOAD_TOO_LARGE').message).toContain('expands beyond 32 MiB, the limit (EXTRACT_MAX_INFLATED_BYTES)');
  });

  it('extraction runs in a worker process, not in the server', async () => {
    const pending = upload(t, token, 'watched.pdf', 'application/pdf', pdfRepeatingOnePage(1500));
    let seen: string[] = [];
    // Polled until the worker shows (it runs for about a second here).
    for (let i = 0; i < 200 && seen.length === 0; i++) {
      seen = childCommands().filter((command) => command.includes('parsing.worker'));
      if (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('--max-old-space-size=256');
    expect((await pending).status).toBe(201);
  });
});

const LOW_LIMITS = { maxMemoryMb: 128, maxPages: 1_000_000, maxInflatedBytes: 256 * MiB, maxTextChars: 5_000, concurrency: 1 };

describe('extraction limits set low', () => {
  // A generous time limit, so that on a loaded machine only the limit under test can stop a file.
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp({ config: { extract: { ...LOW_LIMITS, timeoutMs: 30_000 } } });
    token = (await t.createOwner()).token;
  });
  afterAll(async () => t.close());

  it('text beyond EXTRACT_MAX_TEXT_CHARS answers 413, whatever the file type; at the cap it is kept', async () => {
    const text = expectError(await upload(t, token, 'long.txt', 'text/plain', Buffer.alloc(5_001, 'a')), 413, 'PAYLOAD_TOO_LARGE');
    expect(text.message).toBe('long.txt holds more than 5000 characters of text, the limit (EXTRACT_MAX_TEXT_CHARS); split it into smaller files');
    expect((await upload(t, token, 'exact.txt', 'text/plain', Buffer.alloc(5_000, 'a'))).status).toBe(201);
    const html = await upload(t, token, 'long.html', 'text/html', Buffer.from(`<p>${'word '.repeat(2_000)}</p>`));
    expect(expectError(html, 413, 'PAYLOAD_TOO_LARGE').message).toContain('EXTRACT_MAX_TEXT_CHARS');
    // A PDF stops at the first page past the cap rather than reading all 1,000.
    const pdf = await upload(t, token, 'long.pdf', 'application/pdf', pdfRepeatingOnePage(1_000, 'x'.repeat(60)));
    expect(expectError(pdf, 413, 'PAYLOAD_TOO_LARGE').message).toContain('EXTRACT_MAX_TEXT_CHARS');
  });

  it('a PDF stream inflating to 400 MiB, and a .docx of 60 MiB of tiny paragraphs, are stopped by EXTRACT_MAX_MEMORY_MB', async () => {
    const pdf = await upload(t, token, 'stream.pdf', 'application/pdf', pdfInflatingContent(400));
    expect(expectError(pdf, 413, 'PAYLOAD_TOO_LARGE').message).toBe(
      'stream.pdf needs more than 128 MiB of memory to read, the limit (EXTRACT_MAX_MEMORY_MB); it is refused. Split it into smaller files',
    );
    const docx = await upload(t, token, 'tiny-paragraphs.docx', DOCX_TYPE, docxInflatingTo(60));
    expect(expectError(docx, 413, 'PAYLOAD_TOO_LARGE').message).toContain('EXTRACT_MAX_MEMORY_MB');
    expect((await upload(t, token, 'after-memory.txt', 'text/plain', Buffer.from('fine'))).status).toBe(201);
  }, 60_000);
});

/**
 * The pool held by one slow file, 40,000 pages without text, while the files sent meanwhile are
 * seen waiting or refused. A compiled worker reads it within 128 MiB, for longer than the 30 s
 * above, so these apps stop it at 8 s: seconds of holding the pool, as the test needs, and no
 * more.
 */
const SLOW_FILE_LIMITS = { ...LOW_LIMITS, timeoutMs: 8_000 };

describe('extraction queue full', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp({ config: { extract: SLOW_FILE_LIMITS } });
    token = (await t.createOwner()).token;
  });
  afterAll(async () => t.close());

  it('beyond EXTRACT_CONCURRENCY running and four times as many waiting, an upload answers 429 with Retry-After', async () => {
    // One slow file runs (EXTRACT_CONCURRENCY is 1 here; a limit stops it after seconds), four
    // wait (two accounts' two each: the most one account may have waiting), and a third
    // account's upload is refused at once.
    const [second, third] = [(await t.createOwner()).token, (await t.createOwner()).token];
    const slow = upload(t, token, 'slow.pdf', 'application/pdf', pdfRepeatingOnePage(40_000, ''));
    await expect.poll(() => t.container.parsing.load().running, { timeout: 10_000 }).toBe(1);
    const queued = [token, token, second, second].map((owner, i) => upload(t, owner, `queued-${i}.txt`, 'text/plain', Buffer.from(`waiting ${i}`)));
    await expect.poll(() => t.container.parsing.load(), { timeout: 10_000 }).toEqual({ running: 1, waiting: 4 });
    const refused = await upload(t, third, 'one-too-many.txt', 'text/plain', Buffer.from('x'));
    expect(expectError(refused, 429, 'RATE_LIMITED').message).toContain('EXTRACT_CONCURRENCY');
    expect(refused.headers['retry-after']).toBe('5');
    // The slow one is stopped by a limit (413, never 500), then each waiting one gets its turn.
    expectError(await slow, 413, 'PAYLOAD_TOO_LARGE');
    for (const res of await Promise.all(queued)) expect(res.status, res.text).toBe(201);
    expect(t.container.parsing.load()).toEqual({ running: 0, waiting: 0 });
  }, 90_000);
});

describe('extraction shared fairly between accounts', () => {
  // EXTRACT_CONCURRENCY 2: one account may hold one slot and have two files waiting.
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { extract: { ...SLOW_FILE_LIMITS, concurrency: 2 } } });
  });
  afterAll(async () => t.close());

  it('security: one account sending slow files cannot keep another account waiting or refused', async () => {
    const [a, b] = [(await t.createOwner('Flooder')).token, (await t.createOwner('Neighbour')).token];
    // Account A sends a slow PDF (seconds, before a limit stops it), then another and
    // eight small files at once: as many as the whole pool once took from one account.
    const settled = new Set<number>();
    const track = (pending: ReturnType<typeof upload>, i: number) => pending.finally(() => settled.add(i));
    const first = track(upload(t, a, 'slow-0.pdf', 'application/pdf', pdfRepeatingOnePage(40_000, '')), 0);
    await expect.poll(() => t.container.parsing.load().running, { timeout: 10_000 }).toBe(1);
    const sent = [
      first,
      ...[
        upload(t, a, 'slow-1.pdf', 'application/pdf', pdfRepeatingOnePage(40_000, '')),
        ...Array.from({ length: 8 }, (_, i) => upload(t, a, `a-${i}.txt`, 'text/plain', Buffer.from(`from a ${i}`))),
      ].map((pending, i) => track(pending, i + 1)),
    ];
    // Every one of A's files is either refused already or in the pool (running or waiting).
    await expect
      .poll(() => settled.size + t.container.parsing.load().running + t.container.parsing.load().waiting, { timeout: 10_000 })
      .toBe(sent.length);
    // A holds one slot and two waiting places, no more; the rest were refused at once, naming why.
    expect(t.container.parsing.load()).toEqual({ running: 1, waiting: 2 });
    const answered = await Promise.all([...settled].map((i) => sent[i]!));
    expect(answered).toHaveLength(7);
    for (const res of answered) {
      expect(expectError(res, 429, 'RATE_LIMITED').message).toBe(
        'Your own files are queued: 1 being read and 2 waiting, the most one account may have (1 read at once and 2 waiting, from EXTRACT_CONCURRENCY); try again in 5 s, once they are read',
      );
      expect(res.headers['retry-after']).toBe('5');
    }
    // Account B's upload is read at once, while A's slow file is still being read.
    const neighbour = await upload(t, b, 'neighbour.txt', 'text/plain', Buffer.from('read without waiting'));
    expect(neighbour.status, neighbour.text).toBe(201);
    expect(neighbour.body.data.content).toBe('read without waiting');
    expect(settled.has(0)).toBe(false);
    // A's own files are read in turn: the first slow one stopped by a limit (413, never 500),
    // the two that waited read or stopped likewise.
    const results = await Promise.all(sent);
    expectError(results[0]!, 413, 'PAYLOAD_TOO_LARGE');
    const admitted = results.filter((res) => res.status !== 429);
    expect(admitted).toHaveLength(3);
    for (const res of admitted) expect([201, 413], res.text).toContain(res.status);
    expect(t.container.parsing.load()).toEqual({ running: 0, waiting: 0 });
  }, 90_000);
});

describe('extraction time limit set low', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    // Memory to spare: the page tree grows for as long as it is read, so only the time limit may stop it.
    t = await createTestApp({ config: { extract: { ...LOW_LIMITS, timeoutMs: 1_500, maxMemoryMb: 512 } } });
    token = (await t.createOwner()).token;
  });
  afterAll(async () => t.close());

  it('a PDF still being read after EXTRACT_TIMEOUT_MS answers 413; the next upload is read by a new worker', async () => {
    const started = performance.now();
    // Pages without text, so that only the time limit can stop it.
    const res = await upload(t, token, 'slow.pdf', 'application/pdf', pdfRepeatingOnePage(40_000, ''));
    expect(expectError(res, 413, 'PAYLOAD_TOO_LARGE').message).toBe(
      'slow.pdf takes longer than 1.5 s to read, the limit (EXTRACT_TIMEOUT_MS); it is refused. Split it into smaller files',
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect((await upload(t, token, 'after-timeout.txt', 'text/plain', Buffer.from('fine'))).status).toBe(201);
  });
});
