/**
 * `npm run bench:instructions`: the machine instructions one request costs the server, counted
 * by callgrind, for the read rows of `npm run bench` and for the minimal Fastify app.
 *
 * Throughput on this machine drifts by a third between seconds, so a change worth a few percent
 * cannot be seen in requests per second; an instruction count repeats to about a percent. Each
 * server runs under `valgrind --tool=callgrind` with V8 single-threaded and its hash and random
 * seeds fixed. It is warmed up with sequential keep-alive requests on two connections, and then
 * counted over `INSTR_REQUESTS` requests on a third. The counting is switched on and off from
 * outside (`callgrind_control`), so start-up, seeding and warm-up are not counted. A new
 * connection after the warm-up is part of the method: V8 compiles the HTTP stack again for a new
 * socket's objects, and a count that includes that measures the compiler.
 *
 * Each row gets a fresh server and a small data set made through the API (a few skills, one
 * with a rare word, some memory entries, a scoped token): under valgrind, seeding the full bench
 * data set would take an hour. So the counts are for that small store. They compare builds and
 * show where a request's work goes; the throughput table remains `npm run bench`'s.
 *
 * Settings: BENCH_ROWS (keys below, comma-separated; default all), INSTR_WARMUP (requests per
 * warm-up connection, 3000), INSTR_REQUESTS (counted requests, 1000), INSTR_KEEP=1 keeps the
 * callgrind files for callgrind_annotate. Needs valgrind (Debian: apt-get install valgrind).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RARE_WORD } from './lib/dataset.js';
import { api, registerOwner } from './lib/http.js';
import { buildServer, startHearth, startMinimal, WORDS_ONLY, type Launch, type RunningServer } from './lib/processes.js';

interface Row {
  key: string;
  title: string;
  /** The request counted, from what the seeding made; undefined for the minimal app. */
  target?(seeded: SmallStore): { path: string; token?: string };
}

const ROWS: Row[] = [
  { key: 'minimal', title: 'minimal Fastify app (`GET /`)' },
  { key: 'capabilities', title: '`GET /api/v1/tokens/me/capabilities` (scoped token)', target: (s) => ({ path: '/api/v1/tokens/me/capabilities', token: s.scopedToken }) },
  { key: 'discovery', title: '`GET /api/v1/` (discovery, no token)', target: () => ({ path: '/api/v1/' }) },
  { key: 'by-slug', title: '`GET /api/v1/skills/_by_slug/{slug}`', target: (s) => ({ path: `/api/v1/skills/_by_slug/${s.slug}`, token: s.masterToken }) },
  { key: 'memory', title: '`GET /api/v1/memory?limit=20`', target: (s) => ({ path: '/api/v1/memory?limit=20', token: s.masterToken }) },
  { key: 'context', title: '`GET /api/v1/gateway/context`', target: (s) => ({ path: '/api/v1/gateway/context', token: s.masterToken }) },
  { key: 'rare', title: `\`GET /api/v1/skills?q=${RARE_WORD}&limit=20\``, target: (s) => ({ path: `/api/v1/skills?q=${RARE_WORD}&limit=20`, token: s.masterToken }) },
];

interface SmallStore {
  masterToken: string;
  scopedToken: string;
  slug: string;
}

const positiveInt = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number above 0, not "${raw}"`);
  return value;
};
const WARMUP = positiveInt('INSTR_WARMUP', 3000);
const REQUESTS = positiveInt('INSTR_REQUESTS', 1000);
const KEEP = process.env.INSTR_KEEP === '1';

async function seedSmallStore(baseUrl: string): Promise<SmallStore> {
  const masterToken = await registerOwner(baseUrl, 'instr-owner');
  const call = (method: string, url: string, body?: unknown) => api(baseUrl, method, url, body, masterToken);
  for (let i = 0; i < 40; i++) {
    await call('POST', '/api/v1/skills', {
      name: `skill-${i}`,
      description: `Helps with task ${i}${i % 4 === 0 ? ` and the ${RARE_WORD} case` : ''}`,
      category: 'general',
      scriptContent: `Step one of skill ${i}. Step two.`,
    });
  }
  for (let i = 0; i < 40; i++) await call('POST', '/api/v1/memory', { content: `Memory entry ${i}: the owner prefers short answers` });
  const token = await call('POST', '/api/v1/tokens', { name: 'instr agent', scopes: ['read', 'memory', 'skills'] });
  return { masterToken, scopedToken: token.data.token as string, slug: 'skill-20' };
}

/** Sequential GETs on one keep-alive connection of its own; throws on an answer other than 200. */
async function sendSequentially(baseUrl: string, target: { path: string; token?: string }, count: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers = target.token ? { authorization: `Bearer ${target.token}` } : {};
  try {
    for (let i = 0; i < count; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = http.get(baseUrl + target.path, { agent, headers }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${target.path} answered ${res.statusCode}`))));
        });
        req.on('error', reject);
      });
    }
  } finally {
    agent.destroy();
  }
}

/**
 * callgrind_control finds the process through files named after USER and HOST as valgrind saw
 * them: both are set alike on both sides. HOST is also Hearth's listening address, which is why
 * it is the loopback address it listens on anyway.
 */
const VGDB_ENV = { USER: 'hearth-bench', HOST: '127.0.0.1' };

function callgrindControl(pid: number, ...args: string[]): void {
  execFileSync('callgrind_control', [...args, String(pid)], { env: { ...process.env, ...VGDB_ENV }, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function countRow(row: Row): Promise<number> {
  const outDir = mkdtempSync(path.join(tmpdir(), 'hearth-callgrind-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-instr-'));
  const launch: Launch = {
    wrapper: ['valgrind', '-q', '--tool=callgrind', '--vgdb=yes', '--instr-atstart=no', `--callgrind-out-file=${path.join(outDir, 'callgrind.out')}`],
    nodeFlags: ['--single-threaded', '--hash-seed=1', '--random-seed=1'],
    readyWithinMs: 300_000,
    env: VGDB_ENV,
  };
  let server: RunningServer | undefined;
  try {
    server = row.target ? await startHearth({ dataDir, databaseUrl: undefined }, WORDS_ONLY, launch) : await startMinimal(launch);
    const target = row.target ? row.target(await seedSmallStore(server.baseUrl)) : { path: '/' };
    await sendSequentially(server.baseUrl, target, WARMUP);
    await sendSequentially(server.baseUrl, target, WARMUP);
    callgrindControl(server.pid, '--instr=on');
    await sendSequentially(server.baseUrl, target, REQUESTS);
    // A dump of what was counted, written before the server is stopped (its shutdown is not counted).
    callgrindControl(server.pid, '--dump');
    const dump = readdirSync(outDir).find((name) => name.endsWith('.1'));
    if (!dump) throw new Error(`callgrind wrote no dump in ${outDir}`);
    const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(path.join(outDir, dump), 'utf8'));
    if (!totals) throw new Error(`no totals line in ${path.join(outDir, dump)}`);
    if (KEEP) console.log(`  ${row.key}: callgrind files kept in ${outDir}`);
    return Number(totals[1]) / REQUESTS;
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (!KEEP) rmSync(outDir, { recursive: true, force: true });
  }
}

if (spawnSync('valgrind', ['--version']).error) {
  console.error('valgrind is not installed; this bench counts instructions with it (Debian: apt-get install valgrind)');
  process.exit(1);
}
const wanted = process.env.BENCH_ROWS?.split(',').map((key) => key.trim()).filter(Boolean);
const unknown = wanted?.filter((key) => !ROWS.some((row) => row.key === key)) ?? [];
if (unknown.length > 0) {
  console.error(`Unknown BENCH_ROWS key(s): ${unknown.join(', ')}; the keys are ${ROWS.map((row) => row.key).join(', ')}`);
  process.exit(1);
}
const rows = ROWS.filter((row) => row.key === 'minimal' || !wanted || wanted.includes(row.key));

console.log('Building the server (node scripts/build.mjs)…');
buildServer();
const counts = new Map<string, number>();
for (const row of rows) {
  console.log(`Counting ${row.key} (${WARMUP} × 2 warm-up, ${REQUESTS} counted)…`);
  counts.set(row.key, await countRow(row));
}
const minimal = counts.get('minimal')!;
console.log(`\nInstructions per request (callgrind, ${REQUESTS} sequential keep-alive requests after ${WARMUP} × 2 on other connections), SQLite:\n`);
console.log('| route | instructions per request | against the minimal app |');
console.log('|---|---|---|');
for (const row of rows) {
  const count = counts.get(row.key)!;
  console.log(`| ${row.title} | ${Math.round(count).toLocaleString('en-US')} | ${(count / minimal).toFixed(2)}× |`);
}
