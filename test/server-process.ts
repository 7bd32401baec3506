/**
 * The real server process, compiled (`dist/src/main.js`) and started the way `npm start` does,
 * for the tests that need one of their own: what it says when it cannot start (startup.test.ts),
 * its resident memory while it reads hostile files (extract.e2e.test.ts), backups and restores
 * (backups.e2e.test.ts). The compiled server starts in a fraction of the time the sources take
 * under tsx, which compiles and resolves some 900 modules at every start.
 */
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '..');

/** A spawned server with its output piped. */
export type ServerChild = ChildProcessByStdio<null, Readable, Readable>;

let built: Promise<unknown> | undefined;

/**
 * Builds dist/ when a source changed since the last build (incremental: a directory walk when
 * nothing did, as after `npm ci`), once per test file.
 */
export function buildServer(): Promise<unknown> {
  return (built ??= promisify(execFile)(process.execPath, ['scripts/build.mjs'], { cwd: PROJECT_ROOT, timeout: 120_000 }));
}

/** `node dist/src/main.js` in the project folder, with exactly `env`, once dist/ is current. */
export async function spawnServer(env: NodeJS.ProcessEnv): Promise<ServerChild> {
  await buildServer();
  return spawn(process.execPath, ['--enable-source-maps', 'dist/src/main.js'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * The settings of a compiled server (`dist/src/main.js`, as `npm start` runs it) started by a
 * test: production mode on a free loopback port, open registration and a cheap password hash,
 * and nothing else from the test's own environment.
 */
export function compiledServerEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    REGISTRATION: 'open',
    PASSWORD_HASH_COST: '10',
    ...extra,
  };
}

export interface RunningServer {
  child: ServerChild;
  base: string;
  /** The master token of the owner registered on it. */
  token: string;
  dataDir: string;
  output: () => string;
}

/** The address a spawned server says it listens at, and everything it has written so far. */
export async function listeningAddress(child: ChildProcessByStdio<null, Readable, Readable>): Promise<{ base: string; output: () => string }> {
  let log = '';
  const base = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${log}`)));
  });
  return { base, output: () => log };
}

/**
 * A server listening on a free port with a fresh DATA_DIR, the test's environment without the
 * machine's own server settings, plus `env`; its owner is registered.
 */
export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-server-'));
  // The machine's own settings stay out: the server reads only what the test gives it.
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(EXTRACT_|DATABASE_URL|TEST_DATABASE_URL|PORT|HOST|DATA_DIR|LOG_LEVEL|REGISTRATION)/.test(name)),
  );
  const child = await spawnServer({ ...clean, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', PASSWORD_HASH_COST: '10', ...env });
  const { base, output } = await listeningAddress(child);
  const register = await fetch(`${base}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@example.test', password: 'a-long-password-1', name: 'Owner' }),
  });
  expect(register.status).toBe(201);
  const token = ((await register.json()) as { data: { token: string } }).data.token;
  return { child, base, token, dataDir, output };
}

/** Stops the server (SIGTERM, SIGKILL after 5 s) and removes its DATA_DIR. */
export async function stopServer(server: RunningServer | undefined): Promise<void> {
  if (!server) return;
  if (server.child.exitCode === null && server.child.signalCode === null) {
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    // A server whose event loop is blocked never runs its SIGTERM handler.
    const force = setTimeout(() => server.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(force);
  }
  rmSync(server.dataDir, { recursive: true, force: true });
}
