/**
 * Load on loopback: the client shares the machine's cores with the server, the same for Hearth
 * and for the minimal app, which is why only ratios measured side by side count. The client is
 * the bench's own lean one (client.ts), or autocannon with BENCH_CLIENT=autocannon, to compare.
 */
import autocannon from 'autocannon';
import { runLoad, serializeRequest, type HttpRequest } from './client.js';
import { cpuMicroseconds } from './processes.js';

export interface Sample {
  requestsPerSecond: number;
  p99Ms: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** The first failing answer, to say what went wrong. */
  firstFailure?: string;
  /**
   * CPU time per answer, in µs: of the server's process (set by the caller, who knows its pid;
   * a database server's own processes are not counted) and of this process, the load client.
   * The two run on their own cores, so the larger sets the rate: it says which side a row waits on.
   */
  serverCpuUs?: number;
  clientCpuUs?: number;
}

/**
 * What to load: a URL (its path and query are the request's), a method, headers and a body; or,
 * with `vary`, a path and body made afresh for each request.
 */
export interface Target {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  vary?: () => { path?: string; body?: string };
}

export type LoadClient = 'lean' | 'autocannon';

/** BENCH_CLIENT: which client sends the load (lean unless told otherwise). */
export function chosenClient(): LoadClient {
  const asked = process.env.BENCH_CLIENT || 'lean';
  if (asked !== 'lean' && asked !== 'autocannon') throw new Error(`BENCH_CLIENT must be "lean" or "autocannon", got "${asked}"`);
  return asked;
}

/** Runs the target at `connections` for `seconds`: the throughput rows. */
export async function loadFor(target: Target, connections: number, seconds: number): Promise<Sample> {
  return measure(target, connections, { seconds });
}

/**
 * Sends exactly `amount` requests and waits for every answer. A timed run stops by closing its
 * connections with requests still in flight, which the server may still carry out; a write run
 * must not, or the entries counted afterwards could not be matched with the answers received.
 * The rate is counted up to the last answer.
 */
export async function loadAmount(target: Target, connections: number, amount: number): Promise<Sample> {
  return measure(target, connections, { amount });
}

async function measure(target: Target, connections: number, limit: { seconds: number } | { amount: number }): Promise<Sample> {
  const client = process.cpuUsage();
  const sample = chosenClient() === 'autocannon' ? await withAutocannon(target, connections, limit) : await withLean(target, connections, limit);
  const cpu = process.cpuUsage(client);
  const answers = sample.ok + sample.non2xx;
  return answers > 0 ? { ...sample, clientCpuUs: (cpu.user + cpu.system) / answers } : sample;
}

async function withLean(target: Target, connections: number, limit: { seconds: number } | { amount: number }): Promise<Sample> {
  const url = new URL(target.url);
  if (url.protocol !== 'http:') throw new Error(`the bench's client speaks plain HTTP only, not ${url.protocol} (${target.url})`);
  const request: HttpRequest = { method: target.method ?? 'GET', path: url.pathname + url.search, headers: target.headers ?? {}, ...(target.body !== undefined ? { body: target.body } : {}) };
  const fixed = serializeRequest(url.host, request);
  const vary = target.vary;
  const next = vary ? () => serializeRequest(url.host, { ...request, ...vary() }) : () => fixed;
  const outcome = await runLoad({ host: url.hostname, port: Number(url.port || 80), connections, next, ...limit });
  const answers = outcome.ok + outcome.non2xx;
  return {
    requestsPerSecond: answers / (outcome.elapsedMs / 1000),
    p99Ms: percentile(outcome.latenciesMs, 0.99),
    ok: outcome.ok,
    non2xx: outcome.non2xx,
    errors: outcome.errors,
    ...(outcome.firstFailure !== undefined ? { firstFailure: outcome.firstFailure.slice(0, 300) } : {}),
  };
}

/** The latency below which `share` of the answers came, in whole ms as autocannon gives it. */
function percentile(latencies: Float64Array, share: number): number {
  if (latencies.length === 0) return 0;
  const sorted = Float64Array.from(latencies).sort();
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!);
}

async function withAutocannon(target: Target, connections: number, limit: { seconds: number } | { amount: number }): Promise<Sample> {
  let failure: string | undefined;
  const url = new URL(target.url);
  const vary = target.vary;
  const request: autocannon.Request = {
    method: target.method ?? 'GET',
    path: url.pathname + url.search,
    ...(target.body !== undefined ? { body: target.body } : {}),
    ...(vary ? { setupRequest: (r: autocannon.Request) => ({ ...r, ...vary() }) } : {}),
    onResponse: (status: number, body: string) => {
      if (status >= 300 && failure === undefined) failure = `${status} ${body.slice(0, 300)}`;
    },
  };
  const started = performance.now();
  let lastAnswer = started;
  const opts: autocannon.Options = {
    url: url.origin,
    headers: target.headers,
    requests: [request],
    connections,
    ...('seconds' in limit ? { duration: limit.seconds } : { amount: limit.amount }),
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(opts, (error, res) => (error ? reject(error) : resolve(res)));
    instance.on('response', () => (lastAnswer = performance.now()));
  });
  // An amount run's rate is counted up to the last answer, not to autocannon's next one-second tick.
  const rate = 'seconds' in limit ? result.requests.average : (result['2xx'] + result.non2xx) / ((lastAnswer - started) / 1000);
  return {
    requestsPerSecond: rate,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    ...(failure !== undefined ? { firstFailure: failure } : {}),
  };
}

/** Runs `load` and adds the CPU time the process `pid` spent per answer meanwhile (see Sample). */
export async function withServerCpu(pid: number, load: () => Promise<Sample>): Promise<Sample> {
  const before = cpuMicroseconds(pid);
  const measured = await load();
  const after = cpuMicroseconds(pid);
  const answers = measured.ok + measured.non2xx;
  if (before === undefined || after === undefined || answers === 0) return measured;
  return { ...measured, serverCpuUs: (after - before) / answers };
}
