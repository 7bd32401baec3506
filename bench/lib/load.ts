/**
 * Load through autocannon (loopback; the client shares the machine's cores with the server, the
 * same for Hearth and for the minimal app, which is why only ratios measured side by side count).
 */
import autocannon from 'autocannon';
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

/** What to load: a URL with its headers, or a request built afresh for each send. */
export interface Target {
  url: string;
  headers?: Record<string, string>;
  requests?: autocannon.Request[];
}

/** Runs the target at `connections` for `seconds`: the throughput rows. */
export async function loadFor(target: Target, connections: number, seconds: number): Promise<Sample> {
  const client = process.cpuUsage();
  const { result, failure } = await run({ ...options(target, connections), duration: seconds });
  return sample(result, result.requests.average, failure, process.cpuUsage(client));
}

/**
 * Sends exactly `amount` requests and waits for every answer. A timed run stops by closing its
 * connections with requests still in flight, which the server may still carry out; a write run
 * must not, or the entries counted afterwards could not be matched with the answers received.
 * The rate is counted up to the last answer, not to autocannon's next one-second tick.
 */
export async function loadAmount(target: Target, connections: number, amount: number): Promise<Sample> {
  const started = performance.now();
  const client = process.cpuUsage();
  let lastAnswer = started;
  const { result, failure } = await run({ ...options(target, connections), amount }, () => (lastAnswer = performance.now()));
  return sample(result, (result['2xx'] + result.non2xx) / ((lastAnswer - started) / 1000), failure, process.cpuUsage(client));
}

function options(target: Target, connections: number): autocannon.Options {
  return { url: target.url, headers: target.headers, requests: target.requests, connections };
}

async function run(opts: autocannon.Options, onAnswer?: () => void): Promise<{ result: autocannon.Result; failure?: string }> {
  let failure: string | undefined;
  // Each request reports its failing answers' bodies; without its own requests, the target gets one.
  const requests = (opts.requests ?? [{}]).map((request) => ({
    ...request,
    onResponse: (status: number, body: string) => {
      if (status >= 300 && failure === undefined) failure = `${status} ${body.slice(0, 300)}`;
    },
  }));
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ ...opts, requests }, (error, res) => (error ? reject(error) : resolve(res)));
    if (onAnswer) instance.on('response', onAnswer);
  });
  return { result, failure };
}

function sample(result: autocannon.Result, requestsPerSecond: number, firstFailure: string | undefined, client: NodeJS.CpuUsage): Sample {
  const answers = result['2xx'] + result.non2xx;
  return {
    requestsPerSecond,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    ...(firstFailure !== undefined ? { firstFailure } : {}),
    ...(answers > 0 ? { clientCpuUs: (client.user + client.system) / answers } : {}),
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
