/**
 * Two Hearth nodes on one PostgreSQL database against one node (README, "Running several nodes"):
 * what the cross-node machinery costs on the hot path, and how long a change made through one
 * node takes to reach the other.
 *
 * One fresh database, seeded through node A with the data set of `npm run bench`. Then, in
 * interleaved rounds, each row is loaded (a) on node A alone (node B running, idle), then (b) on A
 * and B at once, half the connections each, their requests/s summed. The nodes are hit directly: a
 * load balancer in the measured path (the tests' round-robin proxy is a single Node process)
 * would be the bottleneck and measure itself. The write row sends a fixed number of new
 * entries and checks afterwards that the entry count grew by exactly the number of 2xx answers.
 * Last, with both nodes idle: the time from a token revoked through A (its answer) until B
 * refuses it, and from a memory entry written through A (its answer) until B's memory page,
 * cached before the write, lists it; each over BENCH_TRIALS trials.
 *
 * Run: npm run bench:cluster
 *   BENCH_ROUNDS (3), BENCH_DURATION (5 s), BENCH_CONNECTIONS (50), BENCH_TRIALS (20),
 *   BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test: a database is created beside it
 *   and dropped at the end), BENCH_ROWS (capabilities,memory,context,write: keys of bench/lib/rows.ts).
 * Exits with 1 on errors, non-2xx answers or a failed check.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { skillCatalogue } from './lib/dataset.js';
import { api } from './lib/http.js';
import { loadAmount, loadFor, type Sample } from './lib/load.js';
import { BenchDatabases, DEFAULT_DATABASE_URL, unreachable } from './lib/postgres.js';
import { buildServer, startHearth, WORDS_ONLY, type RunningServer } from './lib/processes.js';
import { median, percent, whole } from './lib/report.js';
import { THROUGHPUT_ROWS, type RowContext, type ThroughputRow } from './lib/rows.js';
import { checkSeeded, memoryTotal, seed, type Seeded } from './lib/seed.js';
import { positive } from './lib/settings.js';

/** Node B starts cold: its routes are run this long on both nodes before anything is timed. */
const WARMUP_SECONDS = 2;
/** How long a change may take to reach the other node before a trial counts as failed (the README's bound is 1 s). */
const TRIAL_TIMEOUT_MS = 5_000;
const DEFAULT_ROWS = ['capabilities', 'memory', 'context', 'write'];

const settings = {
  rounds: Math.round(positive('BENCH_ROUNDS', 3)),
  seconds: positive('BENCH_DURATION', 5),
  connections: Math.max(2, Math.round(positive('BENCH_CONNECTIONS', 50))),
  trials: Math.round(positive('BENCH_TRIALS', 20)),
};
const databaseUrl = process.env.BENCH_DATABASE_URL || DEFAULT_DATABASE_URL;

function chooseRows(): ThroughputRow[] {
  const asked = process.env.BENCH_ROWS?.split(',').map((key) => key.trim()).filter((key) => key !== '');
  const keys = asked && asked.length > 0 ? asked : DEFAULT_ROWS;
  const known = new Set(THROUGHPUT_ROWS.map((row) => row.key));
  for (const key of keys) if (!known.has(key)) throw new Error(`BENCH_ROWS: unknown row "${key}" (${[...known].join(', ')})`);
  return THROUGHPUT_ROWS.filter((row) => keys.includes(row.key));
}
const rows = chooseRows();

type Setup = 'one' | 'two';
const SETUP_NAMES: Record<Setup, string> = { one: 'node A alone', two: 'A and B, load split' };

interface Report {
  /** Per row and setup, one sample per round (for two nodes: the sum of both). */
  samples: Map<string, Record<Setup, Sample[]>>;
  writes: Array<{ setup: Setup; acknowledged: number; grew: number }>;
  revokedMs: number[];
  memoryMs: number[];
  seedSeconds: number;
  problems: string[];
}

/** Both halves of a split load as one sample: requests/s and answers summed, the worse p99. */
function sum(a: Sample, b: Sample): Sample {
  return {
    requestsPerSecond: a.requestsPerSecond + b.requestsPerSecond,
    p99Ms: Math.max(a.p99Ms, b.p99Ms),
    ok: a.ok + b.ok,
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
    ...((a.firstFailure ?? b.firstFailure) !== undefined ? { firstFailure: a.firstFailure ?? b.firstFailure } : {}),
  };
}

/** Requests for a write run: about BENCH_DURATION seconds' worth at the rate last seen, in whole rounds of the connections. */
function writeAmount(rate: number, connections: number): number {
  return Math.max(connections * 20, Math.round((rate * settings.seconds) / connections) * connections);
}

/**
 * The writer's entry count once it has grown by `expected`, read through `baseUrl`. A node learns
 * of the other's last writes when their notice arrives (within the README's 1 s), so the count is
 * read again until it matches or 2 s have passed; what it grew by then is answered.
 */
async function grownBy(baseUrl: string, token: string, before: number, expected: number): Promise<number> {
  const deadline = performance.now() + 2_000;
  for (;;) {
    const grew = (await memoryTotal(baseUrl, token)) - before;
    if (grew === expected || performance.now() > deadline) return grew;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Calls `base` with `token` and answers the status, the body read and dropped. */
async function status(base: string, url: string, token: string): Promise<number> {
  const response = await fetch(base + url, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return response.status;
}

/** Polls until `done()` holds (one request after the other, no pause), answering the milliseconds since `since`. */
async function pollUntil(done: () => Promise<boolean>, since: number, what: string): Promise<number> {
  while (!(await done())) {
    if (performance.now() - since > TRIAL_TIMEOUT_MS) throw new Error(`${what}: not seen on node B ${TRIAL_TIMEOUT_MS / 1000} s later`);
  }
  return performance.now() - since;
}

/** A token revoked through A: ms from A's answer until B refuses it. The token is used (so cached) on both nodes first. */
async function revocationTrial(a: string, b: string, seeded: Seeded): Promise<number> {
  const created = await api(a, 'POST', '/api/v1/tokens', { name: `revocation trial ${randomBytes(4).toString('hex')}`, scopes: ['memory'] }, seeded.masterToken);
  const secret = created.data.token as string;
  for (const node of [a, b]) {
    for (let i = 0; i < 2; i++) if ((await status(node, '/api/v1/memory?limit=1', secret)) !== 200) throw new Error('a new token was refused');
  }
  await api(a, 'DELETE', `/api/v1/tokens/${created.data.id}`, undefined, seeded.masterToken);
  const revokedAt = performance.now();
  if ((await status(a, '/api/v1/memory?limit=1', secret)) !== 401) throw new Error('node A still accepts a token it revoked');
  return pollUntil(async () => (await status(b, '/api/v1/memory?limit=1', secret)) === 401, revokedAt, 'a revoked token');
}

/** An entry written through A: ms from A's answer until B's memory page, read (so cached) just before, lists it. */
async function memoryTrial(a: string, b: string, seeded: Seeded, n: number): Promise<number> {
  const page = () => api(b, 'GET', '/api/v1/memory?limit=20', undefined, seeded.writerToken) as Promise<{ data: Array<{ id: unknown }> }>;
  for (let i = 0; i < 2; i++) await page();
  const created = await api(a, 'POST', '/api/v1/memory', { content: `Cross-node trial ${n}: written on one node, read on the other.` }, seeded.writerToken);
  const writtenAt = performance.now();
  return pollUntil(async () => (await page()).data.some((entry) => entry.id === created.data.id), writtenAt, 'a new memory entry');
}

async function run(report: Report): Promise<void> {
  const databases = new BenchDatabases(databaseUrl);
  const dataDirs = [0, 1].map((i) => mkdtempSync(path.join(tmpdir(), `hearth-bench-node${i}-`)));
  const running = new Set<RunningServer>();
  try {
    const url = await databases.create();
    // What every node needs identical (README): the database and the vault key.
    const vaultKey = randomBytes(32).toString('base64');
    const start = async (i: number) => {
      const server = await startHearth({ dataDir: dataDirs[i]!, databaseUrl: url }, { ...WORDS_ONLY, VAULT_KEY: vaultKey });
      running.add(server);
      return server;
    };

    console.log('Seeding through node A…');
    const a = await start(0);
    const seeded = await seed(a.baseUrl, skillCatalogue());
    report.seedSeconds = seeded.seconds;
    report.problems.push(...(await checkSeeded(a.baseUrl, seeded)));
    console.log(`  seeded in ${seeded.seconds.toFixed(1)} s`);

    const counters = { commonQueriesSent: { n: 0 }, writesSent: { n: 0 }, questionsSent: { n: 0 } };
    const ctx = (server: RunningServer): RowContext => ({ baseUrl: server.baseUrl, seeded, ...counters });
    let writeRate = 0;
    const { connections } = settings;

    /** One row on `nodes`, the connections split between them; a warm-up is short and not kept. */
    const measure = async (row: ThroughputRow, nodes: RunningServer[], setup: Setup, warmUp: boolean): Promise<Sample> => {
      const share = (i: number) => Math.floor(connections / nodes.length) + (i < connections % nodes.length ? 1 : 0);
      if (!row.writes) {
        const samples = await Promise.all(nodes.map((node, i) => loadFor(row.target(ctx(node)), share(i), warmUp ? WARMUP_SECONDS : settings.seconds)));
        return samples.reduce(sum);
      }
      const before = warmUp ? 0 : await memoryTotal(a.baseUrl, seeded.writerToken);
      const amount = warmUp ? connections * 20 : writeAmount(writeRate, connections);
      const samples = await Promise.all(
        nodes.map((node, i) => loadAmount(row.target(ctx(node)), share(i), Math.round((amount * share(i)) / connections))),
      );
      const total = samples.reduce(sum);
      writeRate = total.requestsPerSecond;
      if (!warmUp) {
        const grew = await grownBy(a.baseUrl, seeded.writerToken, before, total.ok);
        report.writes.push({ setup, acknowledged: total.ok, grew });
        if (grew !== total.ok) report.problems.push(`${row.key} on ${SETUP_NAMES[setup]}: ${total.ok} writes acknowledged, but the entry count grew by ${grew}`);
      }
      return total;
    };

    /** One measured sample of `row` on `nodes`, kept and printed. */
    const measureRow = async (round: number, row: ThroughputRow, setup: Setup, nodes: RunningServer[]) => {
      const sample = await measure(row, nodes, setup, false);
      console.log(`  round ${round} ${row.key.padEnd(13)} ${SETUP_NAMES[setup].padEnd(22)} ${whole(sample.requestsPerSecond).padStart(7)}/s p99 ${sample.p99Ms} ms`);
      if (sample.non2xx > 0 || sample.errors > 0) {
        report.problems.push(`${row.key} on ${SETUP_NAMES[setup]}: ${sample.non2xx} non-2xx answers, ${sample.errors} errors${sample.firstFailure ? ` (first: ${sample.firstFailure})` : ''}`);
      }
      const kept = report.samples.get(row.key) ?? { one: [], two: [] };
      kept[setup].push(sample);
      report.samples.set(row.key, kept);
    };

    // Node B runs from here on, idle while node A is loaded alone: both stay warm, and each row
    // alternates between the setups within every round.
    const b = await start(1);
    // A short run of each row on both nodes first, so that every route is compiled by V8 (and
    // its caches filled) before it is timed.
    for (const row of rows) await measure(row, [a, b], 'two', true);
    console.log(`Measuring ${settings.rounds} interleaved rounds; the nodes are loaded directly, no load balancer in between (it would be the bottleneck).`);
    for (let round = 1; round <= settings.rounds; round++) {
      for (const row of rows) {
        await measureRow(round, row, 'one', [a]);
        await measureRow(round, row, 'two', [a, b]);
      }
    }

    console.log(`Cross-node delays, ${settings.trials} trials each, both nodes idle…`);
    for (let trial = 0; trial < settings.trials; trial++) report.revokedMs.push(await revocationTrial(a.baseUrl, b.baseUrl, seeded));
    for (let trial = 0; trial < settings.trials; trial++) report.memoryMs.push(await memoryTrial(a.baseUrl, b.baseUrl, seeded, trial));
  } catch (error) {
    report.problems.push(`the run stopped: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    for (const server of running) await server.stop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    await databases.dropAll();
  }
}

function cell(samples: Sample[]): string {
  if (samples.length === 0) return 'not measured';
  const failed = samples.reduce((n, s) => n + s.non2xx + s.errors, 0);
  if (failed > 0) return `ERROR: ${failed} failed requests`;
  return `${whole(median(samples.map((s) => s.requestsPerSecond)))}/s, p99 ${Math.round(median(samples.map((s) => s.p99Ms)))} ms`;
}

const ms = (values: number[]) =>
  values.length === 0 ? 'not measured' : `median ${median(values).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms (${values.length} trials)`;

function render(report: Report): string {
  const cpus = os.cpus();
  const date = new Date().toISOString().slice(0, 10);
  const lines = [
    `Measured on ${date} on ${os.availableParallelism()} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, PostgreSQL, ` +
      `${settings.connections} connections, ${settings.rounds} interleaved rounds of ${settings.seconds} s per row and setup. ` +
      `One node: node A loaded alone (node B up, idle). Two nodes: each node loaded directly with half the connections at once, ` +
      `requests/s summed (no load balancer in the measured ` +
      `path: it would be the bottleneck). Both nodes, the load client and PostgreSQL share the same cores, so two nodes cannot be ` +
      `faster here; the ratio shows what the cross-node machinery costs per request.`,
    '',
    '| route | one node (A alone) | two nodes (A and B, load split) | two / one |',
    '|---|---|---|---|',
  ];
  for (const row of rows) {
    const kept = report.samples.get(row.key) ?? { one: [], two: [] };
    const one = median(kept.one.map((s) => s.requestsPerSecond));
    const two = median(kept.two.map((s) => s.requestsPerSecond));
    const ratio = kept.one.length > 0 && kept.two.length > 0 ? percent(two / one) : 'n/a';
    lines.push(`| ${row.title} | ${cell(kept.one)} | ${cell(kept.two)} | ${ratio} |`);
  }
  lines.push('| a token revoked on node A, until node B refuses it | | ' + ms(report.revokedMs) + ' | |');
  lines.push('| a memory entry written on node A, until node B\'s cached memory page lists it | | ' + ms(report.memoryMs) + ' | |');
  lines.push('');
  const acknowledged = report.writes.reduce((n, w) => n + w.acknowledged, 0);
  const exact = report.writes.every((w) => w.grew === w.acknowledged);
  lines.push(
    `Seeded in ${report.seedSeconds.toFixed(1)} s. Writes: ${exact ? 'after each run the entry count grew by exactly its 2xx answers' : '**the entry count did not match the 2xx answers**'} ` +
      `(${report.writes.length} runs, ${acknowledged.toLocaleString('en-US')} acknowledged). The delays run from the answer of node A to the first ` +
      `answer of node B showing the change, node B polled one request after another.`,
  );
  return lines.join('\n');
}

const report: Report = { samples: new Map(), writes: [], revokedMs: [], memoryMs: [], seedSeconds: 0, problems: [] };
const why = await unreachable(databaseUrl);
if (why !== undefined) {
  report.problems.push(`PostgreSQL cannot be reached at BENCH_DATABASE_URL (${why}); several nodes need PostgreSQL`);
} else {
  console.log('Building the server (node scripts/build.mjs)…');
  buildServer();
  await run(report);
  console.log(`\n${render(report)}\n`);
}
if (report.problems.length > 0) {
  console.log(`FAILED:\n${report.problems.map((p) => `- ${p}`).join('\n')}`);
  process.exitCode = 1;
}
