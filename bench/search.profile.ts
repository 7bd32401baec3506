/**
 * One search row of `npm run bench` against a store seeded once, for measuring and profiling a
 * change without seeding again:
 *   DATA_DIR=<folder> npx tsx bench/seed-store.ts > <folder>/seeded.json     (once)
 *   DATA_DIR=<folder> npx tsx bench/search.profile.ts [search|common|memory|write] [seconds = 5]
 * starts the compiled server on DATA_DIR (words only, as the bench runs it), sends the row's
 * requests (a new question each time; for `memory`, the memory page row's one page; for `write`, the write row's new entries, as the seeded
 * writer) for the given seconds, and prints the server's CPU time per answer (and PostgreSQL's, with DATABASE_URL). PROFILE=<folder> also writes the server's CPU profile (`node --cpu-prof`) there.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { commonQuery } from './lib/dataset.js';
import { loadFor, withServerCpu, type Target } from './lib/load.js';
import { ownerQuestion } from './lib/notes.js';
import { buildServer, postgresCpuMicroseconds, startHearth, WORDS_ONLY } from './lib/processes.js';
import type { Seeded } from './lib/seed.js';

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR must name a folder seeded by bench/seed-store.ts');
const seeded = JSON.parse(readFileSync(path.join(dataDir, 'seeded.json'), 'utf8')) as Seeded;
const row = process.argv[2] ?? 'search';
const seconds = Number(process.argv[3] ?? 5);
const profile = process.env.PROFILE;

buildServer();
const server = await startHearth(
  { dataDir, databaseUrl: process.env.DATABASE_URL || undefined },
  WORDS_ONLY,
  profile ? { wrapper: [], nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profile}`], readyWithinMs: 60_000 } : undefined,
);
let sent = 0;
const run = `${process.pid.toString(36)}${Date.now().toString(36)}`;
const pathOf = (): string =>
  row === 'common'
    ? `/api/v1/skills?q=${encodeURIComponent(commonQuery(sent++))}&limit=20`
    : row === 'memory'
      ? '/api/v1/memory?limit=20'
      : `/api/v1/search?q=${encodeURIComponent(ownerQuestion(sent++))}&types=${process.env.TYPES ?? 'memory,knowledge'}`;
try {
  const target: Target =
    row === 'write'
      ? {
          url: `${server.baseUrl}/api/v1/memory`,
          method: 'POST',
          headers: { authorization: `Bearer ${seeded.writerToken}`, 'content-type': 'application/json' },
          // The write row's body (bench/lib/rows.ts): a new text each time.
          vary: () => ({ body: JSON.stringify({ content: `Bench write ${run}-${sent++}: the owner asked to be reminded about the quarterly review.` }) }),
        }
      : { url: `${server.baseUrl}/api/v1/health`, headers: { authorization: `Bearer ${seeded.masterToken}` }, vary: () => ({ path: pathOf() }) };
  // Warm-up, so that the timed requests run compiled code; then the measured run.
  await loadFor(target, 10, 1);
  // On PostgreSQL its processes' CPU too (all of this machine's), which shares the cores.
  const postgresBefore = process.env.DATABASE_URL ? postgresCpuMicroseconds() : undefined;
  const sample = await withServerCpu(server.pid, () => loadFor(target, 50, seconds));
  const postgresAfter = postgresBefore === undefined ? undefined : postgresCpuMicroseconds();
  const postgres = postgresAfter === undefined || postgresBefore === undefined ? '' : `, PostgreSQL CPU ${((postgresAfter - postgresBefore) / sample.ok).toFixed(0)} µs/answer`;
  console.log(`${row}: ${sample.requestsPerSecond.toFixed(0)}/s, p99 ${sample.p99Ms} ms, server CPU ${sample.serverCpuUs?.toFixed(0)} µs/answer${postgres}, ok ${sample.ok}, non-2xx ${sample.non2xx}${sample.firstFailure ? `: ${sample.firstFailure}` : ''}`);
} finally {
  await server.stop();
}
