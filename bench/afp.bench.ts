/**
 * AFP benchmark: GET /api/v1/afp/{id}/stat through the relay (HTTP → server → WebSocket → the
 * daemon process → fs.stat → back) against the minimal route GET /api/v1/health, served by the
 * same server process in one run: the relay's own cost, on top of what every request pays. The
 * server is compiled and started as `npm start` starts it, on SQLite. The daemon is the linux
 * executable, downloaded through GET /api/v1/afp/download/linux, running as its own process.
 * Both routes are measured with 16 connections, the number of requests one device runs at once
 * (more would answer 429).
 * Run: npm run bench:afp   (BENCH_DURATION, 10 s, and BENCH_CONNECTIONS adjust it)
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { api, registerOwner } from './lib/http.js';
import { loadFor, type Sample, type Target } from './lib/load.js';
import { buildServer, startHearth } from './lib/processes.js';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const GOAL = 0.4;

async function measure(name: string, target: Target): Promise<Sample> {
  // A short warm-up lets V8 optimise the route before it is timed.
  await loadFor(target, CONNECTIONS, 2);
  const sample = await loadFor(target, CONNECTIONS, DURATION_S);
  if (sample.non2xx > 0 || sample.errors > 0) {
    throw new Error(`${name}: ${sample.non2xx} non-2xx answers and ${sample.errors} errors${sample.firstFailure ? ` (first: ${sample.firstFailure})` : ''}`);
  }
  return sample;
}

buildServer();
const dir = mkdtempSync(path.join(tmpdir(), 'hearth-afp-bench-'));
const server = await startHearth({ dataDir: path.join(dir, 'data'), databaseUrl: undefined });
let daemon: ReturnType<typeof spawn> | undefined;
try {
  const master = await registerOwner(server.baseUrl, 'afp-bench');
  const created = await api(server.baseUrl, 'POST', '/api/v1/tokens', { name: 'afp bench', scopes: ['devices'] }, master);
  const token = created.data.token as string;

  const started = Date.now();
  const download = await fetch(`${server.baseUrl}/api/v1/afp/download/linux`);
  if (!download.ok) throw new Error(`download answered ${download.status}`);
  const executable = path.join(dir, 'hearth-afp-linux');
  await pipeline(Readable.fromWeb(download.body! as ReadableStream), createWriteStream(executable));
  await chmod(executable, 0o755);
  console.log(`linux daemon downloaded in ${Date.now() - started} ms (built on the first request, then cached)`);

  daemon = spawn(executable, ['--server', server.baseUrl, '--root', dir, '--name', 'bench', '--privilege', 'read'], {
    env: { ...process.env, HEARTH_AFP_TOKEN: token, HEARTH_AFP_KEY_FILE: path.join(dir, 'device.key') },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let deviceId: string | undefined;
  for (let i = 0; i < 200 && !deviceId; i++) {
    const list = await api(server.baseUrl, 'GET', '/api/v1/afp/devices', undefined, token);
    deviceId = list.data.find((d: { name: string; status: string }) => d.name === 'bench' && d.status === 'online')?.id;
    if (!deviceId) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!deviceId) throw new Error('the daemon did not come online within 10 s');

  const health = await measure('health', { url: `${server.baseUrl}/api/v1/health` });
  const stat = await measure('stat', {
    url: `${server.baseUrl}/api/v1/afp/${deviceId}/stat?path=${encodeURIComponent(dir)}`,
    headers: { authorization: `Bearer ${token}` },
  });
  const ratio = stat.requestsPerSecond / health.requestsPerSecond;
  console.log(`\nRemote PCs (AFP), ${CONNECTIONS} connections, ${DURATION_S} s each`);
  console.log('| route | requests/s | p99 ms | vs minimal | goal |');
  console.log('|---|---|---|---|---|');
  console.log(`| \`GET /api/v1/health\` (no token) | ${Math.round(health.requestsPerSecond)} | ${health.p99Ms} | 100% | |`);
  console.log(
    `| \`GET /api/v1/afp/{id}/stat\` (through the relay and the daemon) | ${Math.round(stat.requestsPerSecond)} | ${stat.p99Ms} | ${(ratio * 100).toFixed(0)}% | ≥ ${GOAL * 100}% ${ratio >= GOAL ? 'met' : 'MISSED'} |`,
  );
  // As the main bench: a missed goal is reported, not a failure; errors above are.
} finally {
  daemon?.kill('SIGTERM');
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
