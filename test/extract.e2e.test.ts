// @engine-independent: its servers run on their own SQLite DATA_DIR whatever the engine of the run
/**
 * End to end: files built to exhaust a parser, uploaded to a real server running as its own
 * process (so that its resident memory can be read from /proc), while GET /api/v1/health is
 * polled without pause. Each upload must be answered with a 4xx within 10 s, every health check
 * within 1 s, and the server's resident memory must stay below 1 GiB throughout, as must the
 * server's and its parsing worker's together.
 * Two servers: one with the default EXTRACT_* settings, where the caps refuse the files early,
 * and one whose caps are raised out of the way, where the workers' own memory and time limits
 * must stop the parsers.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { residentBytes } from '../src/modules/parsing/parsing.pool.js';
import { ignoreFailure } from '../src/lib/ignore-failure.js';
import { ENGINE } from './harness.js';
import { docxInflatingTo, pdfInflatingContent, pdfRepeatingOnePage } from './hostile-files.js';
import { childPids } from './procfs.js';
import { startServer, stopServer, type RunningServer as Server } from './server-process.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** How often resident memory is read: a worker's climb to its limit takes longer than this. */
const SAMPLE_EVERY_MS = 100;

/** The server's resident memory, and that of the server with its parsing workers (its child processes). */
function memoryOf(pid: number): { server: number; total: number } {
  // A worker that has just exited counts as nothing.
  const rss = (of: number) => residentBytes(of) ?? 0;
  const server = rss(pid);
  return { server, total: childPids(pid).reduce((sum, child) => sum + rss(child), server) };
}

interface Watched {
  status: number;
  body: { error?: string; message?: string };
  uploadMs: number;
  healthChecks: number;
  slowestHealthMs: number;
  /** The server process's peak resident memory. */
  peakRss: number;
  /** The peak of the server's and its workers' resident memory together. */
  peakTotalRss: number;
}

/**
 * Uploads the file and, until the answer comes, polls GET /api/v1/health one request at a time
 * (each timed from sending it to its whole answer, as a client sees it) and reads the resident
 * memory of the server and of its workers every SAMPLE_EVERY_MS. The sampler is a timer of its
 * own, rare and short (two small /proc reads), so that it does not slow the health timing.
 */
async function uploadWatched(server: Server, file: { name: string; type: string; data: Buffer }): Promise<Watched> {
  const pid = server.child.pid!;
  let peakRss = 0;
  let peakTotalRss = 0;
  const sample = () => {
    const memory = memoryOf(pid);
    peakRss = Math.max(peakRss, memory.server);
    peakTotalRss = Math.max(peakTotalRss, memory.total);
  };
  sample();
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  let done = false;
  let slowestHealthMs = 0;
  let healthChecks = 0;
  const health = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${server.base}/api/v1/health`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      const tookMs = performance.now() - started;
      expect(res.status).toBe(200);
      slowestHealthMs = Math.max(slowestHealthMs, tookMs);
      healthChecks += 1;
      await delay(20);
    }
  })();
  try {
    const form = new FormData();
    form.append('file', new Blob([file.data], { type: file.type }), file.name);
    const started = performance.now();
    const res = await fetch(`${server.base}/api/v1/brain/knowledge-base/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
      body: form,
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.json()) as Watched['body'];
    const uploadMs = performance.now() - started;
    done = true;
    await health;
    clearInterval(sampler);
    sample();
    return { status: res.status, body, uploadMs, healthChecks, slowestHealthMs, peakRss, peakTotalRss };
  } finally {
    done = true;
    clearInterval(sampler);
    await ignoreFailure(health, 'the upload failed: its error is the one to report');
  }
}

function expectContained(result: Watched, setting: string): void {
  const summary = JSON.stringify({ ...result, peakRssMiB: Math.round(result.peakRss / MiB), peakTotalRssMiB: Math.round(result.peakTotalRss / MiB) });
  expect(result.status, summary).toBe(413);
  expect(result.body.error, summary).toBe('PAYLOAD_TOO_LARGE');
  expect(result.body.message, summary).toContain(setting);
  expect(result.uploadMs, summary).toBeLessThan(10_000);
  expect(result.healthChecks, summary).toBeGreaterThan(0);
  expect(result.slowestHealthMs, summary).toBeLessThan(1_000);
  expect(result.peakRss, summary).toBeLessThan(GiB);
  // The workers are bounded too: the server and its worker together stay below 1 GiB.
  expect(result.peakTotalRss, summary).toBeLessThan(GiB);
}

/** After a stopped job, the next upload is read by a new worker as usual. */
async function expectStillServing(server: Server): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob(['still reading files'], { type: 'text/plain' }), `after-${Date.now()}.txt`);
  const res = await fetch(`${server.base}/api/v1/brain/knowledge-base/upload`, { method: 'POST', headers: { authorization: `Bearer ${server.token}` }, body: form });
  expect(res.status).toBe(201);
}

const docx100 = () => ({ name: 'inflates-to-100-MiB.docx', type: DOCX_TYPE, data: docxInflatingTo(100) });
const pdf40k = () => ({ name: 'one-page-40000-times.pdf', type: 'application/pdf', data: pdfRepeatingOnePage(40_000) });

// The server is the same on both engines (extraction touches no database), so it runs once, on
// the embedded one; a PostgreSQL run would only start the same processes again.
describe.skipIf(ENGINE === 'postgres')('hostile uploads against a running server', () => {
  describe('default settings: the caps refuse them early', () => {
    let server: Server | undefined;
    beforeAll(async () => {
      server = await startServer({});
    }, 30_000);
    afterAll(async () => stopServer(server));

    it('a 300 KB .docx whose XML inflates to 100 MiB: 413 naming EXTRACT_MAX_INFLATED_BYTES', async () => {
      const file = docx100();
      expect(file.data.length).toBeLessThan(400 * 1024);
      expectContained(await uploadWatched(server!, file), 'EXTRACT_MAX_INFLATED_BYTES');
    });

    it('a 240 KB PDF whose page tree names one page 40,000 times: 413 naming EXTRACT_MAX_PAGES', async () => {
      const file = pdf40k();
      expect(file.data.length).toBeLessThan(256 * 1024);
      const result = await uploadWatched(server!, file);
      expectContained(result, 'EXTRACT_MAX_PAGES');
      expect(result.body.message).toContain('40000 pages');
      await expectStillServing(server!);
    });
  });

  describe('caps raised out of the way: the workers’ memory and time limits stop the parsers', () => {
    let server: Server | undefined;
    beforeAll(async () => {
      server = await startServer({
        EXTRACT_MAX_PAGES: '1000000',
        EXTRACT_MAX_INFLATED_BYTES: String(512 * MiB),
        EXTRACT_TIMEOUT_MS: '6000',
        EXTRACT_MAX_MEMORY_MB: '256',
      });
    }, 30_000);
    afterAll(async () => stopServer(server));

    it('the 100 MiB-XML .docx is stopped by EXTRACT_MAX_MEMORY_MB', async () => {
      expectContained(await uploadWatched(server!, docx100()), 'EXTRACT_MAX_MEMORY_MB');
    });

    it('a 400 KB PDF whose content stream inflates to 800 MiB is stopped by EXTRACT_MAX_MEMORY_MB', async () => {
      expectContained(await uploadWatched(server!, { name: 'stream-bomb.pdf', type: 'application/pdf', data: pdfInflatingContent(800) }), 'EXTRACT_MAX_MEMORY_MB');
    });

    it('the 40,000-page PDF is stopped by EXTRACT_TIMEOUT_MS, and the server goes on reading files', async () => {
      expectContained(await uploadWatched(server!, pdf40k()), 'EXTRACT_TIMEOUT_MS');
      await expectStillServing(server!);
    });
  });
});
