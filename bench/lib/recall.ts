/**
 * What the retrieval benches (`bench:recall`, `bench:locomo`) share: the search mode a run
 * measures and the server settings it implies, a Hearth started on a fresh SQLite store with
 * them, the embedder the server reports, waiting for background indexing, and the scores.
 *
 * Everything goes through the public HTTP API, so the benches measure whatever search the
 * server implements, and keep working while it changes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { api } from './http.js';
import { buildServer, startHearth, type RunningServer } from './processes.js';

/**
 * words: lexical ranking only (the server runs with EMBEDDINGS=off); meaning: dense vectors
 * only; fused: both. The embedder for meaning and fused is EMBEDDINGS from the caller's
 * environment, `builtin` when unset.
 */
export type Mode = 'words' | 'meaning' | 'fused';
const MODES: Mode[] = ['words', 'meaning', 'fused'];

export interface RunOptions {
  mode: Mode;
  /** Extra server settings, from `--env KEY=VALUE` (repeatable): they override the mode's. */
  env: Record<string, string>;
  /** Extra query parameters for every search, from `--query-param k=v` (repeatable). */
  queryParams: Record<string, string>;
  /** Positional arguments left over (bench:locomo's data path). */
  rest: string[];
}

/**
 * Parses `--mode`, `--env` and `--query-param` (also `--x=y` forms). The mode also comes from
 * RECALL_MODE. Meaning-only asks the server with `mode=meaning` on each search unless another
 * `--query-param mode=…` is given: a server without that parameter refuses it, and the run says so.
 */
export function parseArguments(argv: string[]): RunOptions {
  let mode = (process.env.RECALL_MODE || 'words') as Mode;
  const env: Record<string, string> = {};
  const queryParams: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--mode') mode = value() as Mode;
    else if (flag === '--env' || flag === '--query-param') {
      const pair = value();
      const eq = pair.indexOf('=');
      if (eq < 1) throw new Error(`${flag} takes KEY=VALUE, not "${pair}"`);
      (flag === '--env' ? env : queryParams)[pair.slice(0, eq)] = pair.slice(eq + 1);
    } else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else rest.push(arg);
  }
  if (!MODES.includes(mode)) throw new Error(`--mode must be one of ${MODES.join(', ')}, not "${mode}"`);
  if (mode === 'meaning' && queryParams.mode === undefined) queryParams.mode = 'meaning';
  return { mode, env, queryParams, rest };
}

/** The server settings a mode implies; `--env` settings override them. */
export function serverSettings(options: RunOptions): Record<string, string> {
  const embedder = options.mode === 'words' ? 'off' : process.env.EMBEDDINGS || 'builtin';
  const passed: Record<string, string> = {};
  // The OpenAI-compatible embedder's settings, when the caller has them, reach the server as they are.
  for (const key of ['EMBEDDINGS_BASE_URL', 'EMBEDDINGS_MODEL', 'EMBEDDINGS_API_KEY']) {
    const v = process.env[key];
    if (v) passed[key] = v;
  }
  return {
    EMBEDDINGS: embedder,
    ...passed,
    // One owner per conversation and a few registrations a second: the login limiter is not under test.
    AUTH_RATE_LIMIT: '1000000',
    TOKEN_RATE_LIMIT: '0',
    ...options.env,
  };
}

export interface RecallServer {
  server: RunningServer;
  settings: Record<string, string>;
  dispose(): Promise<void>;
}

/** Compiles and starts Hearth on an empty SQLite store in a temporary directory, removed by dispose(). */
export async function startRecallServer(options: RunOptions): Promise<RecallServer> {
  buildServer();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-recall-'));
  const settings = serverSettings(options);
  const server = await startHearth({ dataDir, databaseUrl: undefined }, settings);
  return {
    server,
    settings,
    async dispose() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let owners = 0;
/** A new owner and its master token; a counter keeps the e-mail addresses apart within one millisecond. */
export async function newOwner(baseUrl: string, name: string): Promise<string> {
  const res = await api(baseUrl, 'POST', '/api/v1/auth/register', {
    email: `${name}-${process.pid}-${Date.now()}-${owners++}@example.test`,
    password: 'bench-password-1',
  });
  return res.data.token as string;
}

export interface SearchStatus {
  embedder?: { kind?: string; model?: string; dimensions?: number; state?: string };
  pending?: number;
  indexed?: number;
  lastError?: string | null;
}

/** GET /api/v1/search/status, or undefined when the server has no such route (yet). */
export async function searchStatus(baseUrl: string, token: string): Promise<SearchStatus | undefined> {
  const res = await fetch(`${baseUrl}/api/v1/search/status`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`GET /api/v1/search/status answered ${res.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: SearchStatus }).data;
}

export function describeStatus(status: SearchStatus | undefined, mode?: Mode): string {
  if (status === undefined) {
    // Until embedders are wired, a meaning or fused run asks a server that ranks by words: say so beside the table.
    const warning = mode && mode !== 'words' ? `; this ${mode} run measured the server's word search only` : '';
    return `GET /api/v1/search/status: not served (no embedder)${warning}`;
  }
  const e = status.embedder ?? {};
  const parts = [`embedder ${e.kind ?? '?'}`, e.model ? `model ${e.model}` : '', e.dimensions ? `${e.dimensions} dimensions` : '', e.state ? `state ${e.state}` : ''];
  return `${parts.filter(Boolean).join(', ')}; indexed ${status.indexed ?? '?'}, pending ${status.pending ?? '?'}${status.lastError ? `; last error: ${status.lastError}` : ''}`;
}

/**
 * Waits until the owner's background indexing has nothing pending, so that meaning and fused
 * runs score vectors rather than a half-built index. An embedder that is down leaves work
 * pending for good: when `pending` has not fallen for `stallMs`, the wait ends with a warning
 * and the run measures what the server answers then. Answers the last status read.
 */
export async function waitForIndexing(baseUrl: string, token: string, stallMs = 60_000): Promise<SearchStatus | undefined> {
  let status = await searchStatus(baseUrl, token);
  let lowest = Infinity;
  let progressAt = Date.now();
  while (status !== undefined && (status.pending ?? 0) > 0) {
    const pending = status.pending ?? 0;
    if (pending < lowest) {
      lowest = pending;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > stallMs) {
      console.warn(`indexing stalled with ${pending} pending for ${stallMs / 1000} s (${status.lastError ?? 'no error reported'}): measuring as it is`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
    status = await searchStatus(baseUrl, token);
  }
  return status;
}

/**
 * Runs a search, answering the ids in order. A 400 in meaning mode most likely means the server
 * does not know the meaning-only parameter yet: the error says so.
 */
export async function searchIds(baseUrl: string, token: string, url: string, options: RunOptions): Promise<string[]> {
  const extra = Object.entries(options.queryParams).map(([k, v]) => `&${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('');
  try {
    const res = await api<{ data: { id: string | number }[] }>(baseUrl, 'GET', url + extra, undefined, token);
    return res.data.map((item) => String(item.id));
  } catch (err) {
    if (options.mode === 'meaning' && /answered 400/.test(String(err))) {
      throw new Error(`${String(err)}\n(meaning-only asks with ${extra.slice(1)}: this server does not take it; pass --query-param to name its parameter)`);
    }
    throw err;
  }
}

/** One question's result: the 1-based rank of the first right answer within the answer, 0 when absent. */
export interface Outcome {
  group: string;
  kind: string;
  answered: number;
  rank: number;
}

export interface Scores {
  group: string;
  kind: string;
  questions: number;
  emptyPct: number;
  hit1: number;
  hit3: number;
  hit5: number;
  hit10: number;
  mrr: number;
}

/** The 1-based position of the first id in `answer` that `right` holds; 0 when none is. */
export function rankOf(answer: string[], right: Set<string>): number {
  const i = answer.findIndex((id) => right.has(id));
  return i < 0 ? 0 : i + 1;
}

export function score(group: string, kind: string, outcomes: Outcome[]): Scores {
  const n = outcomes.length;
  const pct = (count: number) => (n === 0 ? 0 : (100 * count) / n);
  const hit = (k: number) => pct(outcomes.filter((o) => o.rank > 0 && o.rank <= k).length);
  return {
    group,
    kind,
    questions: n,
    emptyPct: pct(outcomes.filter((o) => o.answered === 0).length),
    hit1: hit(1),
    hit3: hit(3),
    hit5: hit(5),
    hit10: hit(10),
    mrr: n === 0 ? 0 : outcomes.reduce((sum, o) => sum + (o.rank > 0 ? 1 / o.rank : 0), 0) / n,
  };
}

/** Scores per group and kind, with an `all` row per group. */
export function scoreAll(outcomes: Outcome[]): Scores[] {
  const rows: Scores[] = [];
  const groups = [...new Set(outcomes.map((o) => o.group))];
  for (const group of groups) {
    const mine = outcomes.filter((o) => o.group === group);
    const kinds = [...new Set(mine.map((o) => o.kind))].sort();
    for (const kind of kinds) rows.push(score(group, kind, mine.filter((o) => o.kind === kind)));
    if (kinds.length > 1) rows.push(score(group, 'all', mine));
  }
  return rows;
}

export function renderScores(rows: Scores[]): string {
  const f1 = (x: number) => x.toFixed(1);
  const lines = [
    '| set | kind | questions | empty % | hit@1 % | hit@3 % | hit@5 % | hit@10 % | MRR@10 |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.group} | ${r.kind} | ${r.questions} | ${f1(r.emptyPct)} | ${f1(r.hit1)} | ${f1(r.hit3)} | ${f1(r.hit5)} | ${f1(r.hit10)} | ${r.mrr.toFixed(3)} |`),
  ];
  return lines.join('\n');
}
