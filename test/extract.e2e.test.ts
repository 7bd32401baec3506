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
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE } from './harness.js';
import { docxInflatingTo, pdfInflatingContent, pdfRepeatingOnePage } from './hostile-files.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

interface Server {
  child: ChildProcess;
  base: string;
  token: string;
  dataDir: string;
  output: () => string;
}

/** Starts `node --import tsx src/main.ts` on a free port with a fresh DATA_DIR and registers its owner. */
async function startServer(env: Record<string, string>): Promise<Server> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-extract-e2e-'));
  // The machine's own settings stay out: the server reads only what the test gives it.
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(EXTRACT_|DATABASE_URL|TEST_DATABASE_URL|PORT|HOST|DATA_DIR|LOG_LEVEL|REGISTRATION)/.test(name)),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...clean, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', PASSWORD_HASH_COST: '10', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const base = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${log}`)));
  });
  const register = await fetch(`${base}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@example.test', password: 'a-long-password-1', name: 'Owner' }),
  });
  expect(register.status).toBe(201);
  const token = ((await register.json()) as { data: { token: string } }).data.token;
  return { child, base, token, dataDir, output: () => log };
}

async function stopServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  if (server.child.exitCode === null && server.child.signalCode === null) {
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    // A server whose event loop is blocked never runs its SIGTERM handler.
    const force = setTimeout(() => server.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(force);
  }
  rmSync(server.dataDir, { recursive: true, force: true });
}

function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return Number(match?.[1] ?? 0) * 1024;
  } catch {
    return 0; // a worker that has just exited
  }
}

/** The server's resident memory, and that of the server with its parsing workers (its child processes). */
function memoryOf(pid: number): { server: number; total: number } {
  const server = rssOf(pid);
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // no children file: counted as none
  }
  return { server, total: children.reduce((sum, child) => sum + rssOf(child), server) };
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
 * Uploads the file and, until the answer comes, polls GET /api/v1/health one request after
 * another and reads the resident memory of the server and of its workers every 10 ms.
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
  const sampler = setInterval(sample, 10);
  let done = false;
  let slowestHealthMs = 0;
  let healthChecks = 0;
  const health = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${server.base}/api/v1/health`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
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
    await health.catch(() => undefined);
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
