/**
 * `npm run bench:search`: the one search fused with the built-in embedder, as issue 33 sets its
 * goals, on a store filled through the API (SEARCH_ENTRIES memory entries written as an owner
 * writes notes, SEARCH_DOCUMENTS documents of 4 KB), with the server started as `npm start`
 * starts it and the built-in embedder (the default) in its worker process:
 *
 * 1. Background indexing: the entries are written (fast: words serve them at once), then the
 *    owner's `GET /api/v1/search/status` is read every second while the indexer embeds them;
 *    the rate is the growth of `indexed` over INDEX_WINDOW seconds with nothing else running,
 *    from the first vectors stored (the worker's cold start is printed apart).
 *    The server's and its worker's resident memory are sampled for their peaks meanwhile.
 * 2. The write row while that indexing runs: `POST /api/v1/memory` (a second owner, each a new
 *    entry) beside the minimal app in BENCH_ROUNDS interleaved rounds, as `npm run bench` does;
 *    the second owner's entries are cleared after each run (`DELETE /api/v1/memory`), so the
 *    backlog stays the first owner's. Each round checks the backlog was still there.
 * 3. Once `pending` is 0: latency of `GET /api/v1/search?q=<a sentence>&types=memory,knowledge`
 *    (words and meaning fused), a new sentence each request, at concurrency 1 and 50 for
 *    LATENCY_SECONDS each: p50 and p95.
 * 4. The same store restarted with `EMBEDDINGS=off`: the write row's ratio without indexing,
 *    and the same latencies by words only, for comparison.
 *
 * Settings: SEARCH_ENTRIES (10,000), SEARCH_DOCUMENTS (100), INDEX_WINDOW (30 s), BENCH_ROUNDS
 * (5), BENCH_DURATION (2 s), BENCH_CONNECTIONS (50, the write row's and the second latency's),
 * LATENCY_SECONDS (10), BENCH_ENGINE (sqlite | postgres), BENCH_DATABASE_URL (a database is
 * created beside it and dropped afterwards). Waiting for the whole backlog to be embedded takes
 * SEARCH_ENTRIES over the indexing rate: minutes with the built-in embedder.
 * Exits with 1 on errors or non-2xx answers; a missed goal is printed, not fatal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runLoad, serializeRequest } from './lib/client.js';
import { documentContent, memoryContent } from './lib/dataset.js';
import { api, inParallel, registerOwner } from './lib/http.js';
import { loadAmount, loadFor, withServerCpu, type Sample, type Target } from './lib/load.js';
import { ownerQuestion } from './lib/notes.js';
import { BenchDatabases, DEFAULT_DATABASE_URL } from './lib/postgres.js';
import { buildServer, childPids, rssMb, startHearth, startMinimal, WORDS_ONLY, type HearthStorage, type RunningServer } from './lib/processes.js';
import { positive } from './lib/settings.js';

/** Marks this run's writes: a store's entry of the same text would answer them as duplicates (docs/decisions/memory.md). */
const RUN = `${process.pid.toString(36)}${Date.now().toString(36)}`;

const ENTRIES = Math.round(positive('SEARCH_ENTRIES', 10_000));
const DOCUMENTS = Math.round(positive('SEARCH_DOCUMENTS', 100));
const INDEX_WINDOW_S = positive('INDEX_WINDOW', 30);
const ROUNDS = Math.round(positive('BENCH_ROUNDS', 5));
const SECONDS = positive('BENCH_DURATION', 2);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 50));
const LATENCY_S = positive('LATENCY_SECONDS', 10);
const ENGINE = process.env.BENCH_ENGINE || 'sqlite';
if (ENGINE !== 'sqlite' && ENGINE !== 'postgres') throw new Error(`BENCH_ENGINE must be sqlite or postgres, got "${ENGINE}"`);
const SEED_CONCURRENCY = 50;
/** How long the drained backlog is waited for at most, before the latency is measured anyway. */
const DRAIN_LIMIT_S = 1_800;

const GOALS = { indexingPerSecond: 200, p95AtOneMs: 50, p95AtManyMs: 200, writeRatioLoss: 0.1 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;
const problems: string[] = [];
/** The questions sent so far: every request asks a new one (DISTINCT_QUESTIONS of them). */
const counter = { n: 0 };

interface Status {
  embedder: { kind: string; model: string; dimensions: number; state: string };
  pending: number;
  indexed: number;
  lastError: string | null;
}
const status = async (baseUrl: string, token: string) => (await api<{ data: Status }>(baseUrl, 'GET', '/api/v1/search/status', undefined, token)).data;

/** Samples the server's and its workers' resident memory (all its children together) for their peaks. */
function memoryPeaks(pid: number) {
  const peaks = { server: 0, workers: 0 };
  const timer = setInterval(() => {
    peaks.server = Math.max(peaks.server, rssMb(pid) ?? 0);
    peaks.workers = Math.max(peaks.workers, childPids(pid).reduce((sum, child) => sum + (rssMb(child) ?? 0), 0));
  }, 200);
  return { peaks, stop: () => clearInterval(timer) };
}

async function fill(baseUrl: string, token: string): Promise<number> {
  const started = performance.now();
  const call = (method: string, url: string, body?: unknown) => api(baseUrl, method, url, body, token);
  await inParallel(ENTRIES, SEED_CONCURRENCY, (i) => call('POST', '/api/v1/memory', { content: memoryContent(i) }));
  await inParallel(DOCUMENTS, SEED_CONCURRENCY, (i) => call('POST', '/api/v1/brain/knowledge-base', { title: `Notes ${i}`, content: documentContent(i) }));
  return (performance.now() - started) / 1000;
}

/**
 * Indexed items a second over the window (or until nothing is pending), read from the status.
 * The window opens once the first vectors are stored: the worker's start and the model's load
 * before them are timed apart (`coldSeconds`), as they come once per worker, not per entry.
 */
async function indexingRate(baseUrl: string, token: string) {
  const started = performance.now();
  let first = await status(baseUrl, token);
  while (first.indexed === 0 && first.pending > 0 && (performance.now() - started) / 1000 < INDEX_WINDOW_S) {
    await sleep(250);
    first = await status(baseUrl, token);
  }
  const opened = performance.now();
  let last = first;
  while ((performance.now() - opened) / 1000 < INDEX_WINDOW_S && last.pending > 0) {
    await sleep(1_000);
    last = await status(baseUrl, token);
  }
  const seconds = (performance.now() - opened) / 1000;
  const coldSeconds = (opened - started) / 1000;
  console.log(`  first vectors after ${coldSeconds.toFixed(1)} s; then indexed ${first.indexed} → ${last.indexed} in ${seconds.toFixed(1)} s, ${last.pending} pending; embedder ${last.embedder.model} (${last.embedder.state})`);
  if (last.lastError) problems.push(`the indexer reported: ${last.lastError}`);
  return { perSecond: (last.indexed - first.indexed) / seconds, seconds, coldSeconds, indexed: last.indexed, pending: last.pending };
}

/** Waits until nothing of the owner's is pending; answers the seconds waited. */
async function drained(baseUrl: string, token: string): Promise<number> {
  const started = performance.now();
  for (let s = await status(baseUrl, token); s.pending > 0; s = await status(baseUrl, token)) {
    if ((performance.now() - started) / 1000 > DRAIN_LIMIT_S) {
      problems.push(`${s.pending} items still pending after ${DRAIN_LIMIT_S} s: latency measured before the backlog drained`);
      break;
    }
    await sleep(1_000);
  }
  return (performance.now() - started) / 1000;
}

/** The write row beside the minimal app, BENCH_ROUNDS interleaved rounds: the median ratio. */
async function writeRounds(hearth: RunningServer, minimal: RunningServer, writerToken: string, during?: () => Promise<boolean>) {
  let sent = 0;
  const target: Target = {
    url: `${hearth.baseUrl}/api/v1/memory`,
    method: 'POST',
    headers: { authorization: `Bearer ${writerToken}`, 'content-type': 'application/json' },
    vary: () => ({ body: JSON.stringify({ content: `Bench write ${RUN}-${sent++}: the owner asked to be reminded about the quarterly review.` }) }),
  };
  const minimalTarget: Target = { url: `${minimal.baseUrl}/` };
  const clear = () => api(hearth.baseUrl, 'DELETE', '/api/v1/memory', undefined, writerToken);
  // Warm-up: the rate found here sizes the timed runs (a fixed number of writes, as the main bench sends).
  let rate = (await loadAmount(target, CONNECTIONS, CONNECTIONS * 40)).requestsPerSecond;
  await loadFor(minimalTarget, CONNECTIONS, 1);
  await clear();
  const ratios: number[] = [];
  const pairs: Array<{ minimal: Sample; write: Sample }> = [];
  for (let round = 1; round <= ROUNDS; round++) {
    if (during && !(await during())) problems.push(`write round ${round}: the backlog had drained; the round measured no indexing`);
    const amount = Math.max(CONNECTIONS * 20, Math.round((rate * SECONDS) / CONNECTIONS) * CONNECTIONS);
    const runWrite = () => withServerCpu(hearth.pid, () => loadAmount(target, CONNECTIONS, amount));
    const runMinimal = () => withServerCpu(minimal.pid, () => loadFor(minimalTarget, CONNECTIONS, SECONDS));
    const first = round % 2 === 1 ? await runMinimal() : await runWrite();
    const second = round % 2 === 1 ? await runWrite() : await runMinimal();
    const [m, w] = round % 2 === 1 ? [first, second] : [second, first];
    rate = w.requestsPerSecond;
    for (const s of [m, w]) if (s.non2xx > 0 || s.errors > 0) problems.push(`write round ${round}: ${s.non2xx} non-2xx, ${s.errors} errors (${s.firstFailure ?? ''})`);
    ratios.push(w.requestsPerSecond / m.requestsPerSecond);
    pairs.push({ minimal: m, write: w });
    console.log(`  round ${round}: minimal ${Math.round(m.requestsPerSecond)}/s, write ${Math.round(w.requestsPerSecond)}/s (${(100 * ratios.at(-1)!).toFixed(0)}%), server CPU ${w.serverCpuUs?.toFixed(1)} µs a write`);
    await clear();
  }
  return { ratio: median(ratios), writesPerSecond: median(pairs.map((p) => p.write.requestsPerSecond)), minimalPerSecond: median(pairs.map((p) => p.minimal.requestsPerSecond)) };
}

/** p50 and p95 of the one search at `connections`, a new sentence each request, over LATENCY_SECONDS. */
async function searchLatency(baseUrl: string, token: string, connections: number, counter: { n: number }) {
  const url = new URL(baseUrl);
  const next = () =>
    serializeRequest(url.host, {
      method: 'GET',
      path: `/api/v1/search?q=${encodeURIComponent(ownerQuestion(counter.n++))}&types=memory,knowledge`,
      headers: { authorization: `Bearer ${token}` },
    });
  const load = (seconds: number) => runLoad({ host: url.hostname, port: Number(url.port), connections, next, seconds });
  await load(1); // warm-up: compiled code, and the worker loaded if it had stopped
  const outcome = await load(LATENCY_S);
  if (outcome.non2xx > 0 || outcome.errors > 0) problems.push(`search at ${connections}: ${outcome.non2xx} non-2xx, ${outcome.errors} errors (${outcome.firstFailure ?? ''})`);
  const sorted = Float64Array.from(outcome.latenciesMs).sort();
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), perSecond: (outcome.ok + outcome.non2xx) / (outcome.elapsedMs / 1000), answers: outcome.ok };
}

/** A hit's `matched` over a few questions: fused search must answer some hits by meaning. */
async function matchedBy(baseUrl: string, token: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let k = 0; k < 20; k++) {
    const found = await api<{ data: Array<{ matched: string }> }>(baseUrl, 'GET', `/api/v1/search?q=${encodeURIComponent(ownerQuestion(1_000_000 + k))}&types=memory,knowledge`, undefined, token);
    for (const hit of found.data) counts[hit.matched] = (counts[hit.matched] ?? 0) + 1;
  }
  return counts;
}

/** Phases 1 to 3 on the server with the built-in embedder: indexing, the write row meanwhile, the fused latency. */
async function withEmbedder(hearth: RunningServer, minimal: RunningServer, token: string, writerToken: string) {
  const memory = memoryPeaks(hearth.pid);

  console.log(`${ENGINE}: writing ${ENTRIES.toLocaleString('en-US')} entries and ${DOCUMENTS} documents through the API…`);
  const fillSeconds = await fill(hearth.baseUrl, token);
  console.log(`  written in ${fillSeconds.toFixed(1)} s`);
  console.log(`Background indexing, nothing else running (${INDEX_WINDOW_S} s at most)…`);
  const alone = await indexingRate(hearth.baseUrl, token);

  console.log('The write row while the indexer embeds the backlog…');
  const stillPending = async () => (await status(hearth.baseUrl, token)).pending > 0;
  const indexing = alone.pending > 0 ? await writeRounds(hearth, minimal, writerToken, stillPending) : undefined;
  if (!indexing) problems.push('the backlog drained before the write row ran: raise SEARCH_ENTRIES');

  console.log('Waiting for the backlog to drain…');
  const before = await status(hearth.baseUrl, token);
  const drainSeconds = await drained(hearth.baseUrl, token);
  const after = await status(hearth.baseUrl, token);
  memory.stop();
  const drainRate = drainSeconds > 0 ? (after.indexed - before.indexed) / drainSeconds : NaN;
  console.log(`  drained in ${drainSeconds.toFixed(1)} s (${drainRate.toFixed(1)} items/s); ${after.indexed} items indexed`);

  console.log('Fused search latency…');
  const by = await matchedBy(hearth.baseUrl, token);
  console.log(`  hits of 20 questions matched by: ${JSON.stringify(by)}`);
  if (!by.meaning && !by.both) problems.push('no hit matched by meaning: the search measured was not fused');
  const fusedOne = await searchLatency(hearth.baseUrl, token, 1, counter);
  const fusedMany = await searchLatency(hearth.baseUrl, token, CONNECTIONS, counter);
  return { alone, indexing, drainRate, drainSeconds, after, fusedOne, fusedMany, memory };
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const verdict = (met: boolean) => (met ? '' : ', missed');

async function main(): Promise<void> {
  buildServer();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-search-'));
  const databases = ENGINE === 'postgres' ? new BenchDatabases(process.env.BENCH_DATABASE_URL || DEFAULT_DATABASE_URL) : undefined;
  const running = new Set<RunningServer>();
  const start = async (starting: Promise<RunningServer>) => {
    const server = await starting;
    running.add(server);
    return server;
  };
  const stop = async (server: RunningServer) => {
    await server.stop();
    running.delete(server);
  };
  try {
    const storage: HearthStorage = { dataDir, databaseUrl: databases ? await databases.create() : undefined };
    const minimal = await start(startMinimal());
    let hearth = await start(startHearth(storage));
    const token = await registerOwner(hearth.baseUrl, 'bench-owner');
    const writerToken = await registerOwner(hearth.baseUrl, 'bench-writer');
    const fused = await withEmbedder(hearth, minimal, token, writerToken);
    const { alone, indexing, drainRate, drainSeconds, after, fusedOne, fusedMany, memory } = fused;
    await stop(hearth);

    console.log('The same store by words only (EMBEDDINGS=off): the write row and the latency…');
    hearth = await start(startHearth(storage, WORDS_ONLY));
    const wordsOnly = await writeRounds(hearth, minimal, writerToken);
    const wordsOne = await searchLatency(hearth.baseUrl, token, 1, counter);
    const wordsMany = await searchLatency(hearth.baseUrl, token, CONNECTIONS, counter);

    const loss = indexing ? 1 - indexing.ratio / wordsOnly.ratio : NaN;
    const lines = [
      '',
      `${ENGINE}, ${ENTRIES.toLocaleString('en-US')} entries and ${DOCUMENTS} documents, built-in embedder (${after.embedder.model}, ${after.embedder.dimensions} dimensions); ${new Date().toISOString().slice(0, 10)}, load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`,
      '',
      '| measure | goal | measured |',
      '|---|---|---|',
      `| background indexing, nothing else running | ≥ ${GOALS.indexingPerSecond}/s | ${alone.perSecond.toFixed(1)}/s over ${alone.seconds.toFixed(0)} s${verdict(alone.perSecond >= GOALS.indexingPerSecond)} (first vectors ${alone.coldSeconds.toFixed(1)} s after the writes) |`,
      `| background indexing, the whole backlog after the write rounds | | ${drainRate.toFixed(1)}/s over ${drainSeconds.toFixed(0)} s |`,
      `| \`POST /api/v1/memory\` while indexing, of the minimal app | within ${GOALS.writeRatioLoss * 100}% of words only | ${indexing ? `${(100 * indexing.ratio).toFixed(0)}% (${Math.round(indexing.writesPerSecond)}/s) against ${(100 * wordsOnly.ratio).toFixed(0)}% (${Math.round(wordsOnly.writesPerSecond)}/s) words only: ${(100 * (1 - loss)).toFixed(0)}% of it${verdict(loss <= GOALS.writeRatioLoss)}` : 'not measured'} |`,
      `| fused search, concurrency 1: p50 / p95 | p95 ≤ ${GOALS.p95AtOneMs} ms | ${ms(fusedOne.p50)} / ${ms(fusedOne.p95)} (${Math.round(fusedOne.perSecond)}/s)${verdict(fusedOne.p95 <= GOALS.p95AtOneMs)} |`,
      `| fused search, concurrency ${CONNECTIONS}: p50 / p95 | p95 ≤ ${GOALS.p95AtManyMs} ms | ${ms(fusedMany.p50)} / ${ms(fusedMany.p95)} (${Math.round(fusedMany.perSecond)}/s)${verdict(fusedMany.p95 <= GOALS.p95AtManyMs)} |`,
      `| words only, concurrency 1: p50 / p95 | | ${ms(wordsOne.p50)} / ${ms(wordsOne.p95)} (${Math.round(wordsOne.perSecond)}/s) |`,
      `| words only, concurrency ${CONNECTIONS}: p50 / p95 | | ${ms(wordsMany.p50)} / ${ms(wordsMany.p95)} (${Math.round(wordsMany.perSecond)}/s) |`,
      `| peak RSS while indexing: server / its worker | | ${memory.peaks.server.toFixed(0)} MB / ${memory.peaks.workers.toFixed(0)} MB |`,
      '',
    ];
    console.log(lines.join('\n'));
  } finally {
    for (const server of running) await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await databases?.dropAll();
  }
}

try {
  await main();
} catch (error) {
  problems.push(`the run stopped: ${error instanceof Error ? error.message : String(error)}`);
}
if (problems.length > 0) {
  console.log(`FAILED:\n${problems.map((p) => `- ${p}`).join('\n')}`);
  process.exitCode = 1;
}
