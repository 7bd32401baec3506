/**
 * Issue 11's table in one command: every row measured on SQLite and on PostgreSQL against a
 * minimal Fastify app running as its own process, in interleaved rounds, printed as markdown.
 *
 * Per engine: Hearth is compiled once and started as `npm start` starts it on an empty store,
 * seeded through its API (bench/lib/seed.ts), then restarted several times to time its start on
 * an empty store (default settings: the indexer started, no worker may start) and on the seeded
 * store (words only, EMBEDDINGS=off: search by meaning is bench:search's). On the last seeded start, after a quiet spell, its idle
 * memory is read; then each round measures, row after row, the minimal app and the row, each
 * for BENCH_DURATION seconds, while the memory of both processes is sampled for its peak.
 *
 * Run: npm run bench
 *   BENCH_ROUNDS (7), BENCH_DURATION (2 s), BENCH_CONNECTIONS (50),
 *   BENCH_ENGINES (sqlite,postgres), BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test:
 *   a database is created beside it for each empty start, and dropped at the end),
 *   BENCH_ROWS (every row: the keys of bench/lib/rows.ts to measure, e.g. "write,memory").
 * Exits with 1 on errors, non-2xx answers or a failed check; a missed goal is printed, not fatal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { commonWordShares, DISTINCT_COMMON_QUERIES, skillCatalogue } from './lib/dataset.js';
import { loadAmount, loadFor, withServerCpu, type Sample, type Target } from './lib/load.js';
import { BenchDatabases, DEFAULT_DATABASE_URL, unreachable } from './lib/postgres.js';
import { DISTINCT_QUESTIONS } from './lib/notes.js';
import { buildServer, childPids, rssMb, startHearth, startMinimal, startPeakRss, WORDS_ONLY, type HearthStorage, type RunningServer } from './lib/processes.js';
import { ENGINE_NAMES, renderReport, roundLine, type Engine, type EngineReport, type RunSettings } from './lib/report.js';
import { THROUGHPUT_ROWS, type RowContext, type ThroughputRow } from './lib/rows.js';
import { checkSeeded, memoryIndexCost, memoryTotal, seed, type Seeded } from './lib/seed.js';
import { positive } from './lib/settings.js';

const WARMUP_SECONDS = 1;
/** How long a freshly started server is left alone before its idle memory is read. */
const QUIET_SECONDS = 3;

const settings: RunSettings = {
  // Many short rounds rather than a few long ones: this machine's speed drifts over seconds, and
  // a pair measured close together is compared under the same conditions.
  rounds: Math.round(positive('BENCH_ROUNDS', 7)),
  seconds: positive('BENCH_DURATION', 2),
  connections: Math.round(positive('BENCH_CONNECTIONS', 50)),
};
const databaseUrl = process.env.BENCH_DATABASE_URL || DEFAULT_DATABASE_URL;

/** The rows BENCH_ROWS names (all when unset), so that one change can be measured quickly. */
function chooseRows(): ThroughputRow[] {
  const asked = process.env.BENCH_ROWS?.split(',').map((key) => key.trim()).filter((key) => key !== '');
  if (!asked || asked.length === 0) return THROUGHPUT_ROWS;
  const known = new Set(THROUGHPUT_ROWS.map((row) => row.key));
  for (const key of asked) if (!known.has(key)) throw new Error(`BENCH_ROWS: unknown row "${key}" (${[...known].join(', ')})`);
  return THROUGHPUT_ROWS.filter((row) => asked.includes(row.key));
}
const rows = chooseRows();
const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

async function chooseEngines(): Promise<Engine[]> {
  const asked = (process.env.BENCH_ENGINES || 'sqlite,postgres').split(',').map((e) => e.trim());
  for (const e of asked) if (e !== 'sqlite' && e !== 'postgres') throw new Error(`BENCH_ENGINES: unknown engine "${e}" (sqlite, postgres)`);
  if (!asked.includes('postgres')) return asked as Engine[];
  const why = await unreachable(databaseUrl);
  if (why === undefined) return asked as Engine[];
  const rest = asked.filter((e) => e === 'sqlite') as Engine[];
  console.log(`PostgreSQL cannot be reached (${why}); ${rest.length > 0 ? 'measuring SQLite only' : 'nothing left to measure'}.`);
  return rest;
}

/** Fresh stores for one engine: a data directory each, and on PostgreSQL a database each; all removed by dispose(). */
function storesFor(engine: Engine) {
  const databases = engine === 'postgres' ? new BenchDatabases(databaseUrl) : undefined;
  const dirs: string[] = [];
  return {
    async fresh(): Promise<HearthStorage> {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-'));
      dirs.push(dataDir);
      return { dataDir, databaseUrl: databases ? await databases.create() : undefined };
    },
    async dispose(): Promise<void> {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await databases?.dropAll();
    },
  };
}

/** Requests for a write run: about `seconds` worth at the rate last seen, in whole rounds of the connections. */
function writeAmount(rate: number, seconds = settings.seconds): number {
  const c = settings.connections;
  return Math.max(c * 20, Math.round((rate * seconds) / c) * c);
}

/** The servers started for one engine, so that whatever happens none is left running. */
function fleet() {
  const running = new Set<RunningServer>();
  return {
    async start(starting: Promise<RunningServer>): Promise<RunningServer> {
      const server = await starting;
      running.add(server);
      return server;
    },
    async stop(server: RunningServer): Promise<void> {
      await server.stop();
      running.delete(server);
    },
    async stopAll(): Promise<void> {
      for (const server of running) await server.stop();
      running.clear();
    },
  };
}

/** Seeds the store through a words-only server, checks what the rows rely on, and stops that server. */
async function seedStore(servers: ReturnType<typeof fleet>, seededStore: HearthStorage, report: EngineReport): Promise<Seeded> {
  const skills = skillCatalogue();
  // Words only (WORDS_ONLY): with the built-in embedder the indexer would be embedding the
  // seeded entries, and then each write row's, on the cores the rows are timed on.
  const first = await servers.start(startHearth(seededStore, WORDS_ONLY));
  const seeded = await seed(first.baseUrl, skills);
  report.seedSeconds = seeded.seconds;
  report.problems.push(...(await checkSeeded(first.baseUrl, seeded)));
  const shares = commonWordShares(skills).map((s) => Math.round(s * 100));
  console.log(`  seeded in ${seeded.seconds.toFixed(1)} s; each common word is in ${Math.min(...shares)}–${Math.max(...shares)}% of the skills`);
  const cost = memoryIndexCost();
  console.log(
    `  the memory entries' words index costs ${cost.cost.toLocaleString('en-US')} of its bound ${cost.bound.toLocaleString('en-US')} (${cost.words.toLocaleString('en-US')} words), their kept texts ${cost.textsCost.toLocaleString('en-US')} of the same bound`,
  );
  if (cost.cost > cost.bound) report.problems.push(`the seeded memory's words index (${cost.cost}) exceeds its bound (${cost.bound}): the search row would time the database's scan`);
  if (cost.textsCost > cost.bound) report.problems.push(`the seeded memory's kept texts (${cost.textsCost}) exceed their bound (${cost.bound}): the search row would time reading each hit's row`);
  await servers.stop(first);
  return seeded;
}

async function benchEngine(engine: Engine): Promise<EngineReport> {
  const report: EngineReport = {
    engine,
    rounds: new Map(),
    startSeconds: { empty: [], seeded: [], minimal: [] },
    idleMb: {},
    peakMb: {},
    writes: [],
    commonQueries: { sent: 0, distinct: 0 },
    questions: { sent: 0, distinct: 0 },
    seedSeconds: 0,
    problems: [],
  };
  const stores = storesFor(engine);
  const servers = fleet();
  try {
    console.log(`\n${ENGINE_NAMES[engine]}: seeding through the API…`);
    const seededStore = await stores.fresh();
    const seeded = await seedStore(servers, seededStore, report);

    console.log(`${ENGINE_NAMES[engine]}: start times (${settings.rounds} of each) and idle memory…`);
    // Round after round: the minimal app, Hearth on an empty store, Hearth on the seeded store.
    // The last minimal app and seeded Hearth stay up: they are the ones measured under load.
    let minimal: RunningServer | undefined;
    let hearth: RunningServer | undefined;
    for (let round = 1; round <= settings.rounds; round++) {
      if (minimal) await servers.stop(minimal);
      if (hearth) await servers.stop(hearth);
      minimal = await servers.start(startMinimal());
      report.startSeconds.minimal.push(minimal.startMs / 1000);
      // The empty store starts with the default settings (the built-in embedder, the indexer
      // started), as a new install does: nothing is pending, so no encoder may start.
      const empty = await servers.start(startHearth(await stores.fresh()));
      report.startSeconds.empty.push(empty.startMs / 1000);
      if (round === 1) {
        await sleep(QUIET_SECONDS);
        report.idleMb.empty = rssMb(empty.pid);
        const workers = childPids(empty.pid);
        console.log(`  empty store, built-in embedder: ${workers.length === 0 ? 'no worker process started' : `worker processes ${workers.join(', ')} running`}`);
        if (workers.length > 0) report.problems.push(`on an empty store the server started ${workers.length} worker process(es) within ${QUIET_SECONDS} s: nothing should need the encoder`);
      }
      await servers.stop(empty);
      hearth = await servers.start(startHearth(seededStore, WORDS_ONLY));
      report.startSeconds.seeded.push(hearth.startMs / 1000);
    }
    await sleep(QUIET_SECONDS);
    report.idleMb.seeded = rssMb(hearth!.pid);
    report.idleMb.minimal = rssMb(minimal!.pid);

    await measureRounds(hearth!, minimal!, seeded, report);
  } catch (error) {
    report.problems.push(`${ENGINE_NAMES[engine]} run stopped: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await servers.stopAll();
    await stores.dispose();
  }
  return report;
}

async function measureRounds(hearth: RunningServer, minimal: RunningServer, seeded: Seeded, report: EngineReport): Promise<void> {
  const ctx: RowContext = { baseUrl: hearth.baseUrl, seeded, commonQueriesSent: { n: 0 }, writesSent: { n: 0 }, questionsSent: { n: 0 } };
  const minimalTarget: Target = { url: `${minimal.baseUrl}/` };
  const { connections, seconds } = settings;
  let writeRate = 0;
  const measureRow = async (row: ThroughputRow, warmUp: boolean): Promise<Sample> => {
    if (!row.writes) return withServerCpu(hearth.pid, () => loadFor(row.target(ctx), connections, warmUp ? WARMUP_SECONDS : seconds));
    const before = warmUp ? 0 : await memoryTotal(hearth.baseUrl, seeded.writerToken);
    // Warming up, a short run finds the rate, then a run as long as the reads' warm-up follows it:
    // the write path is the longest, and a few hundred writes left V8 still compiling it in round 1.
    if (warmUp) writeRate = (await loadAmount(row.target(ctx), connections, connections * 20)).requestsPerSecond;
    const amount = writeAmount(writeRate, warmUp ? WARMUP_SECONDS : settings.seconds);
    const sample = await withServerCpu(hearth.pid, () => loadAmount(row.target(ctx), connections, amount));
    writeRate = sample.requestsPerSecond;
    if (!warmUp) {
      const grew = (await memoryTotal(hearth.baseUrl, seeded.writerToken)) - before;
      report.writes.push({ acknowledged: sample.ok, grew });
      if (grew !== sample.ok) report.problems.push(`${row.key}: ${sample.ok} writes acknowledged, but the entry count grew by ${grew}`);
    }
    return sample;
  };

  const peak = startPeakRss([hearth.pid, minimal.pid]);
  try {
    // A short run of each first, so that every route is compiled by V8 before it is timed.
    await loadFor(minimalTarget, connections, WARMUP_SECONDS);
    for (const row of rows) await measureRow(row, true);
    for (let round = 1; round <= settings.rounds; round++) {
      for (const row of rows) {
        // The pair's order alternates: a machine that slows down or speeds up over a round then
        // favours neither side across rounds.
        const minimalFirst = round % 2 === 1;
        const measureMinimal = () => withServerCpu(minimal.pid, () => loadFor(minimalTarget, connections, seconds));
        const first = minimalFirst ? await measureMinimal() : await measureRow(row, false);
        const second = minimalFirst ? await measureRow(row, false) : await measureMinimal();
        const [minimalSample, route] = minimalFirst ? [first, second] : [second, first];
        console.log(roundLine(round, row.key, minimalSample, route));
        for (const [who, s] of [['minimal app', minimalSample], [row.key, route]] as const) {
          if (s.non2xx > 0 || s.errors > 0) report.problems.push(`${who}: ${s.non2xx} non-2xx answers, ${s.errors} errors${s.firstFailure ? ` (first: ${s.firstFailure})` : ''}`);
        }
        report.rounds.set(row.key, [...(report.rounds.get(row.key) ?? []), { minimal: minimalSample, route }]);
      }
    }
  } finally {
    peak.stop();
    [report.peakMb.hearth, report.peakMb.minimal] = peak.peaks();
  }
  report.commonQueries = { sent: ctx.commonQueriesSent.n, distinct: Math.min(ctx.commonQueriesSent.n, DISTINCT_COMMON_QUERIES) };
  report.questions = { sent: ctx.questionsSent.n, distinct: Math.min(ctx.questionsSent.n, DISTINCT_QUESTIONS) };
}

console.log('Building the server (node scripts/build.mjs)…');
buildServer();
const reports: EngineReport[] = [];
for (const engine of await chooseEngines()) reports.push(await benchEngine(engine));
if (reports.length > 0) console.log(`\n${renderReport(reports, settings)}\n`);
const problems = reports.length > 0 ? reports.flatMap((r) => r.problems) : ['no engine was measured'];
if (problems.length > 0) {
  console.log(`FAILED:\n${problems.map((p) => `- ${p}`).join('\n')}`);
  process.exitCode = 1;
}
