/**
 * Durability of acknowledged writes under group commit (src/storage/group-commit.ts): the
 * compiled server, as `npm start` runs it, takes 50 concurrent writers of POST /api/v1/memory
 * and is killed with SIGKILL in the middle of the load, three times, each time restarted on the
 * same data. Every write it acknowledged (2xx) must then be stored exactly once, and no entry
 * may be stored twice (a batch whose units run again after a rollback must not commit a unit
 * twice).
 */
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from './harness.js';
import { expectLedgerKept, listAll, newLedger, writeConcurrently } from './durability.js';
import { compiledServerEnv, listeningAddress } from './server-process.js';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '..');
const WRITERS = 50;
const CYCLES = 3;
/** Acknowledged writes in a cycle before the kill: the server is then under full load. */
const KILL_AFTER = 150;

type Child = ChildProcessByStdio<null, Readable, Readable>;

interface Server {
  child: Child;
  base: string;
  exited: Promise<void>;
}

/** dist/src/main.js on `dataDir` (and the PostgreSQL database when given), listening on a free port. */
async function startCompiled(dataDir: string, databaseUrl: string | undefined): Promise<Server> {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/src/main.js'], {
    cwd: PROJECT_ROOT,
    env: compiledServerEnv(dataDir, databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const { base } = await listeningAddress(child);
  // Only the first lines matter; the rest is drained so that the pipes never fill.
  child.stdout.removeAllListeners('data').resume();
  child.stderr.removeAllListeners('data').resume();
  return { child, base, exited };
}

beforeAll(async () => {
  // Incremental: only builds what changed since the last build.
  await promisify(execFile)(process.execPath, ['scripts/build.mjs'], { cwd: PROJECT_ROOT, timeout: 120_000 });
}, 150_000);

const engines: Array<'sqlite' | 'postgres'> = TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

describe.each(engines)('kill -9 under concurrent writers (%s)', (engine) => {
  let dataDir: string;
  let databaseUrl: string | undefined;
  let pgSchema: string | undefined;
  let server: Server | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-durability-'));
    if (engine === 'postgres') {
      pgSchema = `t_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${pgSchema}`);
      await admin.end();
      const url = new URL(TEST_DATABASE_URL!);
      url.searchParams.set('options', `-c search_path=${pgSchema}`);
      databaseUrl = url.href;
    }
  });

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
    if (pgSchema) {
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
      await admin.end();
    }
  });

  it('keeps every acknowledged write exactly once, and duplicates none', async () => {
    server = await startCompiled(dataDir, databaseUrl);
    const register = await fetch(`${server.base}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.test', password: 'a-long-password-1', name: 'Owner' }),
    });
    expect(register.status).toBe(201);
    const token = ((await register.json()) as { data: { token: string } }).data.token;

    const ledger = newLedger();
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      if (cycle > 1) server = await startCompiled(dataDir, databaseUrl);
      const running = server;
      // Each writer stops once the server is gone.
      const writing = writeConcurrently({
        base: running.base,
        token,
        writers: WRITERS,
        label: `cycle ${cycle}`,
        ledger,
        onDrop: 'stop',
        onAck: (count) => {
          if (count === KILL_AFTER) running.child.kill('SIGKILL');
        },
      });
      await writing;
      await running.exited;
      expect(running.child.signalCode).toBe('SIGKILL');
    }

    server = await startCompiled(dataDir, databaseUrl);
    const stored = await listAll(server.base, token);
    expect(ledger.acknowledged.size).toBeGreaterThanOrEqual(CYCLES * KILL_AFTER);
    expectLedgerKept(stored, ledger);

    const exited = server.exited;
    server.child.kill('SIGTERM');
    await exited;
  }, 60_000);
});
