/**
 * What a run found, per engine, and the markdown table it prints: one line per row of issue 11,
 * one column per engine, ready to paste into the README.
 */
import os from 'node:os';
import type { Sample } from './load.js';
import { THROUGHPUT_ROWS } from './rows.js';

export type Engine = 'sqlite' | 'postgres';
export const ENGINE_NAMES: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** Goals of the rows measured outside the throughput rounds. */
export const START_GOAL_S = 1.0;
export const IDLE_RSS_GOAL_MB = 80;
export const PEAK_RSS_GOAL_MB = 150;

export interface EngineReport {
  engine: Engine;
  /** Per throughput row, one pair per round: the minimal app, then the row. */
  rounds: Map<string, Array<{ minimal: Sample; route: Sample }>>;
  startSeconds: { empty: number[]; seeded: number[]; minimal: number[] };
  idleMb: { empty?: number; seeded?: number; minimal?: number };
  peakMb: { hearth?: number; minimal?: number };
  /** Each measured write run: answers received with 2xx, and how much the entry count grew. */
  writes: Array<{ acknowledged: number; grew: number }>;
  commonQueries: { sent: number; distinct: number };
  /** The one search's questions (rows.ts, `search`). */
  questions: { sent: number; distinct: number };
  seedSeconds: number;
  /** Errors, non-2xx answers, failed checks: any makes the run exit with 1. */
  problems: string[];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const whole = (n: number) => Math.round(n).toLocaleString('en-US');
export const percent = (ratio: number) => `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%`;
const verdict = (met: boolean) => (met ? 'met' : '**MISSED**');
const mb = (value: number | undefined) => (value === undefined ? 'n/a' : `${Math.round(value)} MB`);
const seconds = (values: number[]) => `${median(values).toFixed(2)} s`;
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** One progress line per measured pair, printed as the rounds go. */
export function roundLine(round: number, key: string, minimal: Sample, route: Sample): string {
  const ratio = route.requestsPerSecond / minimal.requestsPerSecond;
  const cpu = (s: Sample, side: 'serverCpuUs' | 'clientCpuUs') => (s[side] === undefined ? '?' : s[side].toFixed(1));
  return (
    `  round ${round} ${key.padEnd(13)} minimal ${whole(minimal.requestsPerSecond).padStart(7)}/s   route ${whole(route.requestsPerSecond).padStart(7)}/s p99 ${route.p99Ms} ms   ${percent(ratio).padStart(4)}` +
    `   µs/answer server ${cpu(route, 'serverCpuUs')}/${cpu(minimal, 'serverCpuUs')} client ${cpu(route, 'clientCpuUs')}/${cpu(minimal, 'clientCpuUs')}`
  );
}

/** Median CPU µs per answer of one side, for the row and for the minimal app beside it: "14.1 / 11.9". */
function cpuPair(pairs: Array<{ minimal: Sample; route: Sample }>, side: 'serverCpuUs' | 'clientCpuUs'): string {
  const of = (which: 'minimal' | 'route') => pairs.map((p) => p[which][side]).filter((v): v is number => v !== undefined);
  const route = of('route');
  const minimal = of('minimal');
  return route.length === 0 || minimal.length === 0 ? 'n/a' : `${median(route).toFixed(1)} / ${median(minimal).toFixed(1)}`;
}

function throughputCell(report: EngineReport, key: string, goal: number): string {
  const pairs = report.rounds.get(key) ?? [];
  if (pairs.length === 0) return 'not measured';
  const failed = pairs.reduce((n, p) => n + p.route.non2xx + p.route.errors, 0);
  if (failed > 0) return `ERROR: ${failed} failed requests`;
  const ratio = median(pairs.map((p) => p.route.requestsPerSecond / p.minimal.requestsPerSecond));
  const rps = median(pairs.map((p) => p.route.requestsPerSecond));
  const p99 = Math.round(median(pairs.map((p) => p.route.p99Ms)));
  return `**${percent(ratio)}** (${whole(rps)}/s, p99 ${p99} ms) ${verdict(ratio >= goal)}`;
}

function startCell(r: EngineReport): string {
  const worst = Math.max(median(r.startSeconds.empty), median(r.startSeconds.seeded));
  return `empty ${seconds(r.startSeconds.empty)}, seeded ${seconds(r.startSeconds.seeded)} (Fastify app: ${seconds(r.startSeconds.minimal)}) ${verdict(worst <= START_GOAL_S)}`;
}

function idleCell(r: EngineReport): string {
  const worst = Math.max(r.idleMb.empty ?? Infinity, r.idleMb.seeded ?? Infinity);
  const met = Number.isFinite(worst) ? verdict(worst <= IDLE_RSS_GOAL_MB) : '';
  return `empty ${mb(r.idleMb.empty)}, seeded ${mb(r.idleMb.seeded)} (Fastify app: ${mb(r.idleMb.minimal)}) ${met}`.trim();
}

function peakCell(r: EngineReport): string {
  const met = r.peakMb.hearth === undefined ? '' : verdict(r.peakMb.hearth <= PEAK_RSS_GOAL_MB);
  return `${mb(r.peakMb.hearth)} (Fastify app: ${mb(r.peakMb.minimal)}) ${met}`.trim();
}

function minimalCell(r: EngineReport): string {
  const all = [...r.rounds.values()].flat().map((p) => p.minimal);
  if (all.length === 0) return 'not measured';
  return `${whole(median(all.map((s) => s.requestsPerSecond)))}/s, p99 ${Math.round(median(all.map((s) => s.p99Ms)))} ms`;
}

export interface RunSettings {
  rounds: number;
  seconds: number;
  connections: number;
}

export function renderReport(reports: EngineReport[], settings: RunSettings): string {
  const cpus = os.cpus();
  const date = new Date().toISOString().slice(0, 10);
  const lines = [
    `Measured on ${date} on ${os.availableParallelism()} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ` +
      `${settings.connections} connections, ${count(settings.rounds, 'interleaved round')} of ${settings.seconds} s per row. ` +
      `Each throughput row is the median over the rounds of its requests/s divided by those of a minimal Fastify app ` +
      `(one route, logger off, in its own process) measured beside it, just before or just after it in alternate rounds.`,
    '',
    `| route | goal | ${reports.map((r) => ENGINE_NAMES[r.engine]).join(' | ')} |`,
    `|---|---|${reports.map(() => '---|').join('')}`,
  ];
  const row = (title: string, goal: string, cell: (r: EngineReport) => string) => lines.push(`| ${title} | ${goal} | ${reports.map(cell).join(' | ')} |`);
  row('minimal Fastify app (the 100%)', '', minimalCell);
  for (const t of THROUGHPUT_ROWS) row(t.title, `≥ ${percent(t.goal)}`, (r) => throughputCell(r, t.key, t.goal));
  row('start to first answer (`GET /api/v1/health`), empty and seeded store', `≤ ${START_GOAL_S.toFixed(1)} s`, startCell);
  row('idle RSS (a few seconds after start)', `≤ ${IDLE_RSS_GOAL_MB} MB`, idleCell);
  row('peak RSS under load (sampled every 100 ms)', `≤ ${PEAK_RSS_GOAL_MB} MB`, peakCell);
  lines.push(
    '',
    'CPU time per answer in µs, the row / the minimal app beside it (medians over the rounds): of the server process ' +
      "(Hearth's alone, not PostgreSQL's) and of the load client. Each runs on its own core, so the larger of a row's two figures is what its rate waits on.",
    '',
    `| route | ${reports.map((r) => `${ENGINE_NAMES[r.engine]} server | ${ENGINE_NAMES[r.engine]} client`).join(' | ')} |`,
    `|---|${reports.map(() => '---|---|').join('')}`,
  );
  for (const t of THROUGHPUT_ROWS) {
    if (!reports.some((r) => (r.rounds.get(t.key) ?? []).length > 0)) continue;
    const cells = reports.map((r) => {
      const pairs = r.rounds.get(t.key) ?? [];
      return `${cpuPair(pairs, 'serverCpuUs')} | ${cpuPair(pairs, 'clientCpuUs')}`;
    });
    lines.push(`| ${t.title} | ${cells.join(' | ')} |`);
  }
  lines.push('');
  for (const r of reports) {
    const acknowledged = r.writes.reduce((n, w) => n + w.acknowledged, 0);
    const exact = r.writes.every((w) => w.grew === w.acknowledged);
    lines.push(
      `- ${ENGINE_NAMES[r.engine]}: seeded in ${r.seedSeconds.toFixed(1)} s; ` +
        `${count(r.commonQueries.sent, 'common-word query', 'common-word queries')} sent, ${r.commonQueries.distinct === r.commonQueries.sent ? 'all different' : `${r.commonQueries.distinct.toLocaleString('en-US')} different`}; ` +
        `${count(r.questions.sent, 'search question')} sent, ${r.questions.distinct === r.questions.sent ? 'all different' : `${r.questions.distinct.toLocaleString('en-US')} different`}; ` +
        `writes: ${exact ? 'after each run the entry count grew by exactly its 2xx answers' : '**the entry count did not match the 2xx answers**'} ` +
        `(${count(r.writes.length, 'run')}, ${acknowledged.toLocaleString('en-US')} acknowledged).`,
    );
  }
  return lines.join('\n');
}
