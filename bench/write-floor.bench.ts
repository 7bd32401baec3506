/**
 * `npm run bench:write-floor`: how far Hearth's write row on PostgreSQL is from the floor of its
 * stack. Three servers, each in its own process, measured in interleaved rounds on the same
 * machine and the same PostgreSQL:
 * - Hearth, `POST /api/v1/memory`, started as `npm start` starts it;
 * - the floor app (bench/floor-write-server.mjs): Fastify with nothing but the group-committed
 *   insert into Hearth's own table, in the database Hearth migrated;
 * - the minimal Fastify app every row of `npm run bench` is divided by.
 * Per answer it reports the CPU time of each server process, of the load client and of all of
 * PostgreSQL's processes: on a machine of two cores the three share them, so whatever one spends
 * the others cannot. "Hearth / floor" says how much of what the stack allows Hearth reaches.
 *
 * Settings: BENCH_ROUNDS (7), BENCH_DURATION (3 s), BENCH_CONNECTIONS (50), BENCH_DATABASE_URL
 * (postgres://postgres@127.0.0.1:5432/test: a database is created beside it and dropped at the end).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { registerOwner } from './lib/http.js';
import { loadFor, withServerCpu, type Sample, type Target } from './lib/load.js';
import { BenchDatabases, DEFAULT_DATABASE_URL, unreachable } from './lib/postgres.js';
import { buildServer, postgresCpuMicroseconds, startFloorWriter, startHearth, startMinimal, WORDS_ONLY, type RunningServer } from './lib/processes.js';
import { median, percent, whole } from './lib/report.js';
import { positive } from './lib/settings.js';

/** Marks this run's writes: a store's entry of the same text would answer them as duplicates (docs/decisions/memory.md). */
const RUN = `${process.pid.toString(36)}${Date.now().toString(36)}`;

const ROUNDS = Math.round(positive('BENCH_ROUNDS', 7));
const SECONDS = positive('BENCH_DURATION', 3);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 50));
const WARMUP_SECONDS = 2;
const SETTLE_SECONDS = 0.5;
const databaseUrl = process.env.BENCH_DATABASE_URL || DEFAULT_DATABASE_URL;

type Key = 'hearth' | 'floor' | 'minimal';
const TITLES: Record<Key, string> = {
  hearth: 'Hearth, `POST /api/v1/memory`',
  floor: 'floor app, `POST /api/v1/memory` (Fastify + group-committed insert, nothing else)',
  minimal: 'minimal Fastify app, `GET /`',
};

interface Measured extends Sample {
  postgresCpuUs?: number;
}

/** A run of `target` with the CPU of its server and of PostgreSQL per answer. */
async function measure(key: Key, server: RunningServer, target: Target, seconds: number): Promise<Measured> {
  const before = postgresCpuMicroseconds();
  const sample = await withServerCpu(server.pid, () => loadFor(target, CONNECTIONS, seconds));
  const after = postgresCpuMicroseconds();
  const answers = sample.ok + sample.non2xx;
  if (sample.non2xx > 0 || sample.errors > 0) {
    throw new Error(`${key}: ${sample.non2xx} answers were not 2xx and ${sample.errors} failed${sample.firstFailure ? ` (first: ${sample.firstFailure})` : ''}`);
  }
  return before === undefined || after === undefined || answers === 0 ? sample : { ...sample, postgresCpuUs: (after - before) / answers };
}

async function ownerIdOf(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>('SELECT id FROM users');
    if (rows.length !== 1) throw new Error(`expected the one registered owner, found ${rows.length}`);
    return rows[0]!.id;
  } finally {
    await client.end();
  }
}

const why = await unreachable(databaseUrl);
if (why) {
  console.error(`PostgreSQL cannot be reached at BENCH_DATABASE_URL (${why}); this bench measures writes to PostgreSQL`);
  process.exit(1);
}
buildServer();
const databases = new BenchDatabases(databaseUrl);
const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-write-floor-'));
const servers: RunningServer[] = [];
try {
  const url = await databases.create();
  const hearth = await startHearth({ dataDir, databaseUrl: url }, WORDS_ONLY);
  servers.push(hearth);
  const token = await registerOwner(hearth.baseUrl, 'bench-writer');
  const floor = await startFloorWriter(url, await ownerIdOf(url));
  servers.push(floor);
  const minimal = await startMinimal();
  servers.push(minimal);

  let written = 0;
  const write = (baseUrl: string, headers: Record<string, string>): Target => ({
    url: `${baseUrl}/api/v1/memory`,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    // The body of `npm run bench`'s write row.
    vary: () => ({ body: JSON.stringify({ content: `Bench write ${RUN}-${written++}: the owner asked to be reminded about the quarterly review.` }) }),
  });
  const runs: Record<Key, { server: RunningServer; target: Target; samples: Measured[] }> = {
    hearth: { server: hearth, target: write(hearth.baseUrl, { authorization: `Bearer ${token}` }), samples: [] },
    floor: { server: floor, target: write(floor.baseUrl, {}), samples: [] },
    minimal: { server: minimal, target: { url: `${minimal.baseUrl}/` }, samples: [] },
  };
  const keys = Object.keys(runs) as Key[];

  console.log(`Warming up, then ${ROUNDS} rounds of ${SECONDS} s each, ${CONNECTIONS} connections…`);
  for (const key of keys) await measure(key, runs[key].server, runs[key].target, WARMUP_SECONDS);
  const cpu = (value: number | undefined) => (value === undefined ? '?' : value.toFixed(1));
  for (let round = 1; round <= ROUNDS; round++) {
    // Each server goes first, second and third in turn, and the order runs backwards every other
    // round, so none always follows the same one (a write run leaves PostgreSQL flushing behind it).
    const rotated = keys.map((_, i) => keys[(i + round) % keys.length]!);
    const order = round % 2 === 0 ? rotated.reverse() : rotated;
    const line: string[] = [];
    for (const key of order) {
      // A moment's load first, unmeasured: connections a pool closed while the others ran are open again.
      await loadFor(runs[key].target, CONNECTIONS, SETTLE_SECONDS);
      const sample = await measure(key, runs[key].server, runs[key].target, SECONDS);
      runs[key].samples.push(sample);
      line.push(`${key} ${whole(sample.requestsPerSecond)}/s (server ${cpu(sample.serverCpuUs)}, client ${cpu(sample.clientCpuUs)}, PostgreSQL ${cpu(sample.postgresCpuUs)} µs)`);
    }
    console.log(`  round ${round}: ${line.join('  ')}`);
  }

  const per = (key: Key, round: number) => runs[key].samples[round]!.requestsPerSecond;
  const rounds = [...Array(ROUNDS).keys()];
  const ratio = (key: Key, to: Key) => median(rounds.map((round) => per(key, round) / per(to, round)));
  const medianOf = (key: Key, field: 'serverCpuUs' | 'clientCpuUs' | 'postgresCpuUs') => {
    const values = runs[key].samples.map((s) => s[field]).filter((v): v is number => v !== undefined);
    return values.length === 0 ? 'n/a' : median(values).toFixed(1);
  };
  console.log(`\nMeasured on ${new Date().toISOString().slice(0, 10)}: ${ROUNDS} interleaved rounds of ${SECONDS} s, ${CONNECTIONS} connections, PostgreSQL; medians over the rounds (ratios: of each round's pair).\n`);
  console.log('| server | answers/s | of the minimal app | CPU µs per answer: server / load client / PostgreSQL |');
  console.log('|---|---|---|---|');
  for (const key of keys) {
    const share = key === 'minimal' ? '100%' : percent(ratio(key, 'minimal'));
    console.log(`| ${TITLES[key]} | ${whole(median(runs[key].samples.map((s) => s.requestsPerSecond)))} | ${share} | ${medianOf(key, 'serverCpuUs')} / ${medianOf(key, 'clientCpuUs')} / ${medianOf(key, 'postgresCpuUs')} |`);
  }
  console.log(`\nHearth / floor: ${percent(ratio('hearth', 'floor'))}`);
} finally {
  for (const server of servers.reverse()) await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  await databases.dropAll();
}
