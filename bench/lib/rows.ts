/**
 * The throughput rows of issue 11's table: what each one loads and the share of the minimal
 * app's requests/s it aims for. The start and memory rows are measured around them (see
 * hearth.bench.ts).
 */
import { commonQuery, RARE_WORD } from './dataset.js';
import { ownerQuestion } from './notes.js';
import type { Target } from './load.js';
import type { Seeded } from './seed.js';

/**
 * Marks this process's writes: a store seeded once serves many runs, and an entry whose text the
 * store already holds is answered as a duplicate, not added (docs/decisions/memory.md), so each
 * run's writes must say something new for the write row to time creations.
 */
const WRITE_RUN = `${process.pid.toString(36)}${Date.now().toString(36)}`;

export interface RowContext {
  baseUrl: string;
  seeded: Seeded;
  /**
   * Counts the common-word queries sent, so that none comes back before all 139,776 have been
   * sent: far more than any cache of the server keeps.
   */
  commonQueriesSent: { n: number };
  /** Counts the entries written, so that each has its own content. */
  writesSent: { n: number };
  /** Counts the questions sent to the one search, so that none comes back (DISTINCT_QUESTIONS of them). */
  questionsSent: { n: number };
}

export interface ThroughputRow {
  key: string;
  /** The table's route column (markdown). */
  title: string;
  /** The goal as a share of the minimal app's requests/s. */
  goal: number;
  /** Writes: sent as a fixed number of requests, and checked against the entries counted afterwards. */
  writes?: boolean;
  target(ctx: RowContext): Target;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export const THROUGHPUT_ROWS: ThroughputRow[] = [
  {
    key: 'capabilities',
    title: '`GET /api/v1/tokens/me/capabilities` (scoped token)',
    goal: 0.8,
    target: ({ baseUrl, seeded }) => ({ url: `${baseUrl}/api/v1/tokens/me/capabilities`, headers: bearer(seeded.scopedToken) }),
  },
  {
    key: 'discovery',
    title: '`GET /api/v1/` (discovery, no token)',
    goal: 0.75,
    target: ({ baseUrl }) => ({ url: `${baseUrl}/api/v1/` }),
  },
  {
    key: 'by-slug',
    title: '`GET /api/v1/skills/_by_slug/{slug}`',
    goal: 0.55,
    target: ({ baseUrl, seeded }) => ({ url: `${baseUrl}/api/v1/skills/_by_slug/${seeded.slug}`, headers: bearer(seeded.masterToken) }),
  },
  {
    key: 'memory',
    title: '`GET /api/v1/memory?limit=20`',
    goal: 0.45,
    target: ({ baseUrl, seeded }) => ({ url: `${baseUrl}/api/v1/memory?limit=20`, headers: bearer(seeded.masterToken) }),
  },
  {
    key: 'context',
    title: '`GET /api/v1/gateway/context` (every section)',
    goal: 0.35,
    target: ({ baseUrl, seeded }) => ({ url: `${baseUrl}/api/v1/gateway/context`, headers: bearer(seeded.masterToken) }),
  },
  {
    key: 'rare',
    title: '`GET /api/v1/skills?q=<rare word>&limit=20` (100 matches)',
    goal: 0.5,
    target: ({ baseUrl, seeded }) => ({ url: `${baseUrl}/api/v1/skills?q=${RARE_WORD}&limit=20`, headers: bearer(seeded.masterToken) }),
  },
  {
    key: 'common',
    title: '`GET /api/v1/skills?q=<three common words>&limit=20`, a different query on every request',
    goal: 0.25,
    target: ({ baseUrl, seeded, commonQueriesSent }) => ({
      url: `${baseUrl}/api/v1/skills`,
      headers: bearer(seeded.masterToken),
      vary: () => ({ path: `/api/v1/skills?q=${encodeURIComponent(commonQuery(commonQueriesSent.n++))}&limit=20` }),
    }),
  },
  {
    // An agent's question over the owner's notes and documents (10,000 entries, 100 documents),
    // by words: the bench's server runs with EMBEDDINGS=off. Memory and knowledge only, the
    // corpus issue 33 names; the 10,000 skills have rows of their own above.
    key: 'search',
    title: '`GET /api/v1/search?q=<a sentence>&types=memory,knowledge`, words only, a new sentence each time',
    goal: 0.25,
    target: ({ baseUrl, seeded, questionsSent }) => ({
      url: `${baseUrl}/api/v1/search`,
      headers: bearer(seeded.masterToken),
      vary: () => ({ path: `/api/v1/search?q=${encodeURIComponent(ownerQuestion(questionsSent.n++))}&types=memory,knowledge` }),
    }),
  },
  {
    key: 'write',
    title: '`POST /api/v1/memory` (each a new entry)',
    goal: 0.25,
    writes: true,
    target: ({ baseUrl, seeded, writesSent }) => ({
      url: `${baseUrl}/api/v1/memory`,
      method: 'POST',
      headers: { ...bearer(seeded.writerToken), 'content-type': 'application/json' },
      vary: () => ({ body: JSON.stringify({ content: `Bench write ${WRITE_RUN}-${writesSent.n++}: the owner asked to be reminded about the quarterly review.` }) }),
    }),
  },
];
