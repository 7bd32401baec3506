/**
 * The real server process (compiled, dist/src/main.js) started the way `npm start` does: what
 * it creates on a fresh clone, and what it says when it cannot start: one line on stderr, what
 * is wrong and how to fix it, and a non-zero exit.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from './harness.js';
import { spawnServer } from './server-process.js';

const mode = (file: string) => statSync(file).mode & 0o777;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts the server with only `env` (plus PATH and HOME). Answers when it exits, or, with
 * `untilServing`, once it says it is serving (it is then stopped with SIGTERM).
 */
async function runServer(env: Record<string, string>, options: { untilServing?: boolean } = {}): Promise<Run> {
  const child = await spawnServer({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', PASSWORD_HASH_COST: '10', ...env });
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (options.untilServing && stdout.includes('Hearth is serving')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** One line on stderr, no stack, exit code 1. */
function expectOneLine(run: Run, pattern: RegExp): void {
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr.endsWith('\n')).toBe(true);
  expect(run.stderr.trimEnd().split('\n'), run.stderr).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stderr.trimEnd()).toMatch(pattern);
}

let root: string;
let busy: Server;
let busyPort: number;
let closedPort: number;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'hearth-startup-'));
  busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  busyPort = (busy.address() as AddressInfo).port;
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
});

afterAll(async () => {
  await new Promise<void>((r) => busy.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('start-up failures are one clear line and a non-zero exit', () => {
  it('port in use, database unreachable, unreadable or damaged key file, DATA_DIR that cannot be made, a file that is not a database', async () => {
    const badJson = path.join(root, 'bad-json');
    mkdirSync(badJson, { mode: 0o700 });
    writeFileSync(path.join(badJson, 'vault-keys.json'), '{ not json', { mode: 0o600 });
    const keyFolder = path.join(root, 'key-folder');
    mkdirSync(path.join(keyFolder, 'vault-keys.json'), { recursive: true, mode: 0o700 });
    chmodSync(keyFolder, 0o700);
    const aFile = path.join(root, 'a-file');
    writeFileSync(aFile, '');
    const notADb = path.join(root, 'not-a-db');
    mkdirSync(notADb, { mode: 0o700 });
    writeFileSync(path.join(notADb, 'hearth.db'), 'this is not SQLite', { mode: 0o600 });

    const [port, unreachable, json, folder, dataDir, notSqlite] = await Promise.all([
      runServer({ DATA_DIR: path.join(root, 'port'), PORT: String(busyPort) }),
      runServer({ DATA_DIR: path.join(root, 'pg'), DATABASE_URL: `postgres://hearth:pa55-w0rd@127.0.0.1:${closedPort}/hearth` }),
      runServer({ DATA_DIR: badJson }),
      runServer({ DATA_DIR: keyFolder }),
      runServer({ DATA_DIR: path.join(aFile, 'data') }),
      runServer({ DATA_DIR: notADb }),
    ]);
    expectOneLine(port, new RegExp(`^Port ${busyPort} on 127\\.0\\.0\\.1 is in use\\. Stop the other process, or set PORT to a free port$`));
    expectOneLine(
      unreachable,
      new RegExp(`^Cannot reach PostgreSQL at 127\\.0\\.0\\.1:${closedPort}: nothing is listening there \\(ECONNREFUSED\\)\\. Start the database server, or fix the host and port in DATABASE_URL$`),
    );
    expect(unreachable.stderr + unreachable.stdout).not.toContain('pa55-w0rd');
    expectOneLine(json, new RegExp(`^Configuration error: The vault key file ${escape(badJson)}/vault-keys\\.json is not valid JSON; restore it from a backup$`));
    expectOneLine(folder, new RegExp(`^Configuration error: The vault key file ${escape(keyFolder)}/vault-keys\\.json is a folder, not a file`));
    expectOneLine(dataDir, new RegExp(`^Configuration error: Cannot create DATA_DIR ${escape(aFile)}/data: a part of the path is a file \\(ENOTDIR\\)\\. Set DATA_DIR to a folder`));
    expectOneLine(notSqlite, new RegExp(`^The database file ${escape(notADb)}/hearth\\.db is not a readable SQLite database \\(SQLITE_NOTADB\\)\\. Restore it from a backup`));
  }, 60_000);

  it.skipIf(!TEST_DATABASE_URL)('a PostgreSQL database that does not exist, and a user PostgreSQL refuses', async () => {
    const url = new URL(TEST_DATABASE_URL!);
    const missing = new URL(url);
    missing.pathname = `/hearth_missing_${randomBytes(4).toString('hex')}`;
    const stranger = new URL(url);
    stranger.username = `hearth_nobody_${randomBytes(4).toString('hex')}`;
    stranger.password = 'n0t-the-password';
    const [noDb, refused] = await Promise.all([
      runServer({ DATA_DIR: path.join(root, 'pg-missing'), DATABASE_URL: missing.href }),
      runServer({ DATA_DIR: path.join(root, 'pg-refused'), DATABASE_URL: stranger.href }),
    ]);
    const where = `${url.hostname}:${url.port || '5432'}`;
    expectOneLine(noDb, new RegExp(`^The database "${missing.pathname.slice(1)}" does not exist on PostgreSQL at ${escape(where)}\\. Create it`));
    expectOneLine(refused, new RegExp(`^PostgreSQL at ${escape(where)} refused user "${stranger.username}" \\(.+\\)\\. Fix the user and password in DATABASE_URL`));
    expect(refused.stderr).not.toContain('n0t-the-password');
  }, 60_000);
});

describe('DATA_DIR on a fresh clone', () => {
  it('SQLite: made 0700 with the database and key file 0600; a looser folder is warned about at start', async () => {
    const dir = path.join(root, 'fresh-sqlite', 'data');
    const first = await runServer({ DATA_DIR: dir }, { untilServing: true });
    expect(first.stdout, first.stderr).toContain('Hearth is serving');
    // A new server says where the owner's account is made.
    expect(first.stdout).toMatch(/open http:\/\/[^ ]+\/ in a browser to create the owner account/);
    // SIGTERM: in-flight requests finish, the app closes its container (pools, storage), exit 0.
    expect(first.stdout).toContain('shutting down');
    expect(first.code, first.stderr).toBe(0);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, 'hearth.db'))).toBe(0o600);
    expect(mode(path.join(dir, 'vault-keys.json'))).toBe(0o600);
    expect(first.stdout).not.toContain('can be read by other users');

    // As an older version left it.
    chmodSync(dir, 0o755);
    chmodSync(path.join(dir, 'hearth.db'), 0o644);
    const second = await runServer({ DATA_DIR: dir }, { untilServing: true });
    const warning = second.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .find((line) => line.msg.includes('can be read by other users'));
    expect(warning?.level).toBe(40);
    expect(warning?.msg).toContain(`run: chmod 700 ${dir} && chmod 600 ${dir}/hearth.db*`);
  }, 60_000);

  it.skipIf(!TEST_DATABASE_URL)('PostgreSQL: DATA_DIR is made (0700) for the vault key file instead of crashing', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA ${schema}`);
      const url = new URL(TEST_DATABASE_URL!);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const dir = path.join(root, 'fresh-pg', 'data');
      const run = await runServer({ DATA_DIR: dir, DATABASE_URL: url.href }, { untilServing: true });
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain('Hearth is serving');
      expect(mode(dir)).toBe(0o700);
      expect(mode(path.join(dir, 'vault-keys.json'))).toBe(0o600);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  }, 60_000);
});
