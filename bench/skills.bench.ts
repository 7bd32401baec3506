/**
 * Skills search benchmark: one owner with 10,000 skills, then GET /api/v1/skills?q=<common
 * word>&limit=20 against the unauthenticated minimal route GET /api/v1/health, served by the
 * same process in one run. Goal: the search reaches at least 40% of the minimal route's
 * requests/s (SQLite).
 * The catalogue is made from a fixed vocabulary with a seeded generator, so every run searches
 * the same data: the query word appears in about 5% of the skills (some 500 matches to rank).
 * Repeating one query measures the served path, which on SQLite keeps recent answers (see
 * src/modules/skills/skills.search-cache.ts); a second, informational measurement draws word,
 * prefix and limit at random, so that most requests rank afresh in the database (the share of
 * first-of-their-kind requests is printed).
 * Run: npx tsx bench/skills.bench.ts   (SKILLS, BENCH_DURATION and BENCH_CONNECTIONS adjust it)
 */
import path from 'node:path';
import autocannon from 'autocannon';
import BetterSqlite3 from 'better-sqlite3';
import { api, CONNECTIONS, DURATION_S, measure, registerOwner, report, startServer } from './lib.js';

const SKILLS = Number(process.env.SKILLS ?? 10_000);
const SEED_CONCURRENCY = 20;
const QUERY_WORD = 'calendar';

// 200 words: with 8 per description, each appears in about 1 - (199/200)^8 ≈ 4% of descriptions,
// and in names and categories besides.
const WORDS = `
  calendar email invoice report summary weather travel budget recipe workout meeting notes
  contract review translate draft outline research citation chart table spreadsheet python
  shell script deploy backup restore monitor alert incident ticket customer support sales lead
  pipeline forecast payroll expense receipt tax audit compliance policy privacy security token
  password vault secret rotate schedule reminder task project roadmap sprint backlog release
  changelog version test coverage lint format refactor debug profile benchmark cache index query
  search filter sort merge split parse extract convert compress image video audio podcast
  transcript caption subtitle slide deck pitch proposal grant essay poem story novel chapter
  editor proofread grammar style tone voice persona prompt agent tool plugin webhook api graphql
  rest endpoint schema migration database backup cluster kubernetes docker container server
  network firewall domain certificate dns mail newsletter campaign social post tweet thread
  comment reply moderation spam feedback survey poll vote rating review score rank recommend
  playlist music movie book library museum garden plant water fertilize harvest kitchen grocery
  shopping order shipping delivery return refund warranty repair maintenance car bike route map
  hiking camping flight hotel booking visa passport currency exchange stock crypto portfolio
  retirement savings loan mortgage insurance health doctor appointment medicine sleep habit
  journal gratitude meditation focus timer pomodoro inbox zero archive label folder tag
`.trim().split(/\s+/);

/** A small seeded generator (mulberry32): the same catalogue on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = rng(42);
const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;

function skillBody(i: number) {
  const description = Array.from({ length: 8 }, pick).join(' ');
  return {
    name: `${pick()}-${pick()}-${i}`,
    description: `Helps with ${description}`,
    category: pick(),
    scriptContent: `---\nlicense: MIT\n---\n# Skill ${i}\n\nSteps: ${description}.\n`,
  };
}

const server = await startServer();
try {
  const token = await registerOwner(server.baseUrl);
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < SKILLS) {
        const i = next++;
        await api(server.baseUrl, 'POST', '/api/v1/skills', skillBody(i), token);
      }
    }),
  );
  const seeded = Date.now() - started;

  const searchUrl = `${server.baseUrl}/api/v1/skills?q=${QUERY_WORD}&limit=20`;
  // Read-only, beside the server: how many rows the search has to rank.
  const database = new BetterSqlite3(path.join(server.dataDir, 'hearth.db'), { readonly: true });
  const matches = database.prepare(`SELECT count(*) AS n FROM skills_fts WHERE skills_fts MATCH ?`).get(`"${QUERY_WORD}"*`) as { n: number };
  database.close();
  console.log(`Seeded ${SKILLS} skills in ${(seeded / 1000).toFixed(1)} s; q=${QUERY_WORD} matches ${matches.n} of them (the page shows 20)`);

  const minimal = await measure('GET /api/v1/health (no token)', `${server.baseUrl}/api/v1/health`);
  const search = await measure(`GET /api/v1/skills?q=${QUERY_WORD}&limit=20 (bearer, ${SKILLS} skills)`, searchUrl, {
    authorization: `Bearer ${token}`,
  });
  const ok = report('Skills search', minimal, [{ m: search, goalRatio: 0.4 }]);

  // Word × prefix × limit: 8,000 combinations, drawn at random, so that most requests are the
  // first of their kind and rank in the database; the share of first requests is printed.
  const seen = new Set<string>();
  let sent = 0;
  const varied = await autocannon({
    url: server.baseUrl,
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { authorization: `Bearer ${token}` },
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => {
          const word = WORDS[Math.floor(Math.random() * WORDS.length)]!;
          const q = word.length > 5 && Math.random() < 0.5 ? word.slice(0, -1) : word;
          const path = `/api/v1/skills?q=${q}&limit=${11 + Math.floor(Math.random() * 20)}`;
          sent += 1;
          seen.add(path);
          return { ...request, path };
        },
      },
    ],
  });
  if (varied.non2xx > 0 || varied.errors > 0) throw new Error(`varied search: ${varied.non2xx} non-2xx answers and ${varied.errors} errors`);
  const variedRps = Math.round(varied.requests.average);
  console.log(
    `| GET /api/v1/skills?q=<random word or prefix>&limit=<11..30> (informational; ${Math.round((seen.size / sent) * 100)}% first of their kind) | ${variedRps} | ${varied.latency.p50} | ${varied.latency.p99} | ${((variedRps / minimal.requestsPerSecond) * 100).toFixed(0)}% | |`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  await server.stop();
}
