/**
 * Shared pieces of the benchmarks: start a real Hearth server as its own process on a fresh
 * data directory, and measure a route with autocannon. Figures are requests per second;
 * compare routes measured in the same run, since absolute numbers drift between runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export interface BenchServer {
  baseUrl: string;
  process: ChildProcess;
  dataDir: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, REGISTRATION: 'open', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`server exited with ${code}`))));
  // Wait for the server to answer; it prints nothing we read, so poll the health route.
  const ready = (async () => {
    for (let i = 0; i < 300; i++) {
      try {
        const res = await fetch(`${baseUrl}/api/v1/health`);
        if (res.ok) return;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('server did not start within 30 s');
  })();
  await Promise.race([ready, exited]);
  return {
    baseUrl,
    process: child,
    dataDir,
    async stop() {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function api<T = any>(baseUrl: string, method: string, url: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(baseUrl + url, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function registerOwner(baseUrl: string): Promise<string> {
  const res = await api(baseUrl, 'POST', '/api/v1/auth/register', {
    email: `bench-${Date.now()}@example.test`,
    password: 'bench-password-1',
  });
  return res.data.token as string;
}

export interface Measurement {
  name: string;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
}

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export async function measure(name: string, url: string, headers: Record<string, string> = {}): Promise<Measurement> {
  // A short warm-up lets V8 optimise the route before it is timed.
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers });
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
  const m: Measurement = {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
  if (m.non2xx > 0 || m.errors > 0) throw new Error(`${name}: ${m.non2xx} non-2xx answers and ${m.errors} errors`);
  return m;
}

export function report(title: string, minimal: Measurement, others: Array<{ m: Measurement; goalRatio: number }>): boolean {
  console.log(`\n${title} (${CONNECTIONS} connections, ${DURATION_S} s each)`);
  console.log(`| route | requests/s | p50 ms | p99 ms | vs minimal | goal |`);
  console.log(`|---|---|---|---|---|---|`);
  console.log(`| ${minimal.name} | ${minimal.requestsPerSecond} | ${minimal.latencyP50Ms} | ${minimal.latencyP99Ms} | 100% | |`);
  let ok = true;
  for (const { m, goalRatio } of others) {
    const ratio = m.requestsPerSecond / minimal.requestsPerSecond;
    const pass = ratio >= goalRatio;
    ok &&= pass;
    console.log(
      `| ${m.name} | ${m.requestsPerSecond} | ${m.latencyP50Ms} | ${m.latencyP99Ms} | ${(ratio * 100).toFixed(0)}% | ≥${goalRatio * 100}% ${pass ? 'met' : 'MISSED'} |`,
    );
  }
  return ok;
}
