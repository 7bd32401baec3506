/**
 * AFP benchmark: GET /api/v1/afp/{id}/stat through the relay (HTTP → server → WebSocket → the
 * daemon process → fs.stat → back) against the minimal route GET /api/v1/health, served by the
 * same server process in one run. The daemon is the linux executable, downloaded through
 * GET /api/v1/afp/download/linux, running as its own process on the same machine.
 * Both routes are measured with 16 connections, the number of requests one device runs at once
 * (more would answer 429).
 * Run: npm run bench:afp   (BENCH_DURATION and BENCH_CONNECTIONS adjust it)
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';

process.env.BENCH_CONNECTIONS ??= '16';
const { api, measure, registerOwner, report, startServer } = await import('./lib.js');

const server = await startServer();
const dir = mkdtempSync(path.join(tmpdir(), 'hearth-afp-bench-'));
let daemon: ReturnType<typeof spawn> | undefined;
try {
  const master = await registerOwner(server.baseUrl);
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

  const minimal = await measure('GET /api/v1/health (no token)', `${server.baseUrl}/api/v1/health`);
  const stat = await measure('GET /api/v1/afp/{id}/stat (bearer, through the daemon)', `${server.baseUrl}/api/v1/afp/${deviceId}/stat?path=${encodeURIComponent(dir)}`, {
    authorization: `Bearer ${token}`,
  });
  const ok = report('Remote PCs (AFP)', minimal, [{ m: stat, goalRatio: 0.4 }]);
  process.exitCode = ok ? 0 : 1;
} finally {
  daemon?.kill('SIGTERM');
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
