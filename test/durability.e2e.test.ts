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
import { listeningAddress } from './server-process.js';

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
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      REGISTRATION: 'open',
      PASSWORD_HASH_COST: '10',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const { base } = await listeningAddress(child);
  // Only the first lines matter; the rest is drained so that the pipes never fill.
  child.stdout.removeAllListeners('data').resume();
  child.stderr.removeAllListeners('data').resume();
  return { child, base, exited };
}

interface Ledger {
  /** Contents the server answered 2xx for. */
  acknowledged: Set<string>;
  /** Every content sent, answered or not. */
  sent: Set<string>;
}

/**
 * 50 writers, each sending its next entry as soon as the last is answered, until the server goes
 * away; `onAck` sees the count of writes acknowledged in this cycle.
 */
function writeUntilGone(server: Server, token: string, cycle: number, ledger: Ledger, onAck: (count: number) => void): Promise<void> {
  let count = 0;
  const writer = async (w: number) => {
    for (let seq = 0; ; seq++) {
      const content = `cycle ${cycle} writer ${w} entry ${seq}`;
      ledger.sent.add(content);
      let status: number;
      try {
        const response = await fetch(`${server.base}/api/v1/memory`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ content }),
        });
        status = response.status;
        await response.arrayBuffer();
      } catch {
        return; // the server was killed: this write's fate is unknown
      }
      if (status < 200 || status >= 300) throw new Error(`write answered ${status}`);
      ledger.acknowledged.add(content);
      onAck(++count);
    }
  };
  return Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w))).then(() => undefined);
}

async function listAll(base: string, token: string): Promise<string[]> {
  const contents: string[] = [];
  let cursor: string | null = null;
  do {
    const url: string = `${base}/api/v1/memory?limit=200${cursor ? `&cursor=${cursor}` : ''}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Array<{ content: string }>; nextCursor: string | null };
    for (const entry of body.data) contents.push(entry.content);
    cursor = body.nextCursor;
  } while (cursor);
  return contents;
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

    const ledger: Ledger = { acknowledged: new Set(), sent: new Set() };
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      if (cycle > 1) server = await startCompiled(dataDir, databaseUrl);
      const running = server;
      const writing = writeUntilGone(running, token, cycle, ledger, (count) => {
        if (count === KILL_AFTER) running.child.kill('SIGKILL');
      });
      await writing;
      await running.exited;
      expect(running.child.signalCode).toBe('SIGKILL');
    }

    server = await startCompiled(dataDir, databaseUrl);
    const stored = await listAll(server.base, token);
    const counts = new Map<string, number>();
    for (const content of stored) counts.set(content, (counts.get(content) ?? 0) + 1);

    expect(ledger.acknowledged.size).toBeGreaterThanOrEqual(CYCLES * KILL_AFTER);
    const lost = [...ledger.acknowledged].filter((content) => !counts.has(content));
    const duplicated = [...counts].filter(([, n]) => n > 1).map(([content]) => content);
    const unknown = [...counts.keys()].filter((content) => !ledger.sent.has(content));
    expect(lost).toEqual([]);
    expect(duplicated).toEqual([]);
    expect(unknown).toEqual([]);

    const exited = server.exited;
    server.child.kill('SIGTERM');
    await exited;
  }, 60_000);
});
