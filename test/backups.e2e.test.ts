/**
 * Backups that restore (`hearth backup`, `hearth restore`, the server's schedule), through the
 * command line as a person runs it (bin/hearth.js in a child process) and real servers
 * (compiled, dist/src/main.js) on the data before and after: writes acknowledged before a backup
 * began are in the restored server, and its vault secrets decrypt; a backup killed with SIGKILL
 * leaves the earlier one whole and nothing that looks complete; a damaged backup and a non-empty
 * DATA_DIR are refused; the schedule backs up and prunes.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { listBackups, MANIFEST_FILE } from '../src/modules/backups/backups.manifest.js';
import { TEST_DATABASE_URL } from './harness.js';
import { expectLedgerKept, listAll, newLedger, writeConcurrently } from './durability.js';
import { listeningAddress, spawnServer, startServer, type RunningServer } from './server-process.js';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '..');
const roots: string[] = [];
const servers: RunningServer['child'][] = [];

function tempDir(label: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `hearth-${label}-`));
  roots.push(dir);
  return dir;
}

afterAll(async () => {
  for (const child of servers) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

/** The test's environment without the machine's own server settings. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(EXTRACT_|DATABASE_URL|TEST_DATABASE_URL|PORT|HOST|DATA_DIR|LOG_LEVEL|REGISTRATION|BACKUP_|VAULT_)/.test(name)));
  return { ...clean, ...extra };
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `node bin/hearth.js …args` with `env`; `onStderr` may kill it. */
function hearth(args: string[], env: Record<string, string>, onStderr?: (text: string, kill: () => void) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/hearth.js', ...args], { cwd: PROJECT_ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onStderr?.(stderr, () => child.kill('SIGKILL'));
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

async function request(base: string, token: string, method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: await response.json() };
}

/** A server started on an existing DATA_DIR (and database), listening on a free port. */
async function serveOn(env: Record<string, string>): Promise<{ base: string; child: RunningServer['child']; output: () => string }> {
  const child = await spawnServer(cleanEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PASSWORD_HASH_COST: '10', ...env }));
  servers.push(child);
  const { base, output } = await listeningAddress(child);
  return { base, child, output };
}

async function stop(child: RunningServer['child']): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The JSON line `--json` prints. */
const result = (run: Run) => JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { ok: boolean; path: string; exitCode: number; error?: string };

const modeOf = (file: string) => statSync(file).mode & 0o777;

// The SQLite pass runs these once; the PostgreSQL pass runs its own below, not these again.
describe.skipIf(TEST_DATABASE_URL)('hearth backup and hearth restore (SQLite)', () => {
  it('restores every write acknowledged before the backup began, and the vault secrets, though writes go on during the backup', async () => {
    const server = await startServer({});
    servers.push(server.child);
    roots.push(server.dataDir);
    const secret = `sk-${randomBytes(12).toString('hex')}`;
    const created = await request(server.base, server.token, 'POST', '/api/v1/vault/tokens', { name: 'mail', service: 'mail', token: secret, websiteUrl: 'https://example.com' });
    expect(created.status).toBe(201);

    const ledger = newLedger();
    let writing = true;
    let reached!: () => void;
    const enough = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const writers = writeConcurrently({
      base: server.base,
      token: server.token,
      writers: 6,
      label: 'backup',
      ledger,
      onDrop: 'stop',
      keepGoing: () => writing,
      onAck: (n) => {
        if (n >= 150) reached();
      },
    });
    await enough;
    // Every write answered so far was acknowledged before the backup began; the writers go on.
    const before = new Set(ledger.acknowledged);
    const backupDir = tempDir('backups');
    const backup = await hearth(['backup', backupDir, '--json'], { DATA_DIR: server.dataDir });
    const duringBackup = ledger.acknowledged.size - before.size;
    writing = false;
    await writers;
    expect(backup.code, backup.stderr).toBe(0);
    const written = result(backup);
    expect(written.ok).toBe(true);
    expect(duringBackup).toBeGreaterThan(0);
    // Private, like DATA_DIR: the key file and the database copy.
    expect(modeOf(path.join(written.path, 'vault-keys.json'))).toBe(0o600);
    expect(modeOf(path.join(written.path, 'hearth.db'))).toBe(0o600);
    expect(modeOf(written.path)).toBe(0o700);
    await stop(server.child);

    const restored = path.join(tempDir('restored'), 'data');
    const restore = await hearth(['restore', written.path], { DATA_DIR: restored });
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toContain(`Restored into DATA_DIR ${restored}`);
    expect(modeOf(restored)).toBe(0o700);
    expect(modeOf(path.join(restored, 'hearth.db'))).toBe(0o600);

    const again = await serveOn({ DATA_DIR: restored });
    const stored = await listAll(again.base, server.token);
    const storedSet = new Set(stored);
    expect([...before].filter((content) => !storedSet.has(content))).toEqual([]);
    // Nothing invented or doubled: what is there was sent, once.
    expectLedgerKept(stored, { acknowledged: before, sent: ledger.sent });
    const revealed = await request(again.base, server.token, 'GET', `/api/v1/vault/tokens/${created.body.data.id}/reveal`);
    expect(revealed.status).toBe(200);
    expect(revealed.body.data.token).toBe(secret);
    await stop(again.child);
  }, 240_000);

  it('a backup killed with SIGKILL leaves the earlier one whole and nothing that looks complete; the next backup clears what it left', async () => {
    const server = await startServer({});
    servers.push(server.child);
    roots.push(server.dataDir);
    await stop(server.child);
    // Tens of megabytes, so that the copy takes long enough to be killed in the middle of it.
    const db = new BetterSqlite3(path.join(server.dataDir, 'hearth.db'));
    db.exec('CREATE TABLE filler (b BLOB)');
    const insert = db.prepare('INSERT INTO filler VALUES (randomblob(1048576))');
    for (let i = 0; i < 96; i++) insert.run();
    db.close();

    const backupDir = tempDir('backups');
    const first = await hearth(['backup', backupDir, '--json'], { DATA_DIR: server.dataDir });
    expect(first.code, first.stderr).toBe(0);
    const firstPath = result(first).path;
    const firstFiles = Object.fromEntries(readdirSync(firstPath).map((name) => [name, readFileSync(path.join(firstPath, name))]));

    const killed = await hearth(['backup', backupDir], { DATA_DIR: server.dataDir }, (text, kill) => {
      if (text.includes('copying the database')) kill();
    });
    expect(killed.signal).toBe('SIGKILL');
    // Only the first backup counts; what the killed one left is hidden and has no final name.
    expect(listBackups(backupDir)).toEqual([path.basename(firstPath)]);
    const left = readdirSync(backupDir).filter((name) => name !== path.basename(firstPath));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\.hearth-backup-.*\.partial\./);
    // The earlier backup is byte for byte as it was, and restores.
    for (const [name, bytes] of Object.entries(firstFiles)) expect(readFileSync(path.join(firstPath, name)).equals(bytes)).toBe(true);
    const restored = path.join(tempDir('restored'), 'data');
    const restore = await hearth(['restore', firstPath], { DATA_DIR: restored });
    expect(restore.code, restore.stderr).toBe(0);

    const next = await hearth(['backup', backupDir, '--json'], { DATA_DIR: server.dataDir });
    expect(next.code, next.stderr).toBe(0);
    expect(listBackups(backupDir)).toHaveLength(2);
    expect(readdirSync(backupDir).filter((name) => name.startsWith('.'))).toEqual([]);
  }, 240_000);

  it('restore refuses a damaged backup, a non-empty DATA_DIR and the other engine, and changes nothing', async () => {
    const server = await startServer({});
    servers.push(server.child);
    roots.push(server.dataDir);
    const backupDir = tempDir('backups');
    const made = await hearth(['backup', backupDir, '--json'], { DATA_DIR: server.dataDir });
    expect(made.code, made.stderr).toBe(0);
    const good = result(made).path;
    await stop(server.child);

    // One byte of the database changed: its checksum no longer matches.
    const damaged = path.join(tempDir('damaged'), 'hearth-backup-copy');
    cpSync(good, damaged, { recursive: true });
    const file = path.join(damaged, 'hearth.db');
    const bytes = readFileSync(file);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    writeFileSync(file, bytes);
    const target = path.join(tempDir('restored'), 'data');
    const refusedDamaged = await hearth(['restore', damaged], { DATA_DIR: target });
    expect(refusedDamaged.code).toBe(4);
    expect(refusedDamaged.stderr).toMatch(/hearth\.db in the backup .* does not match its checksum in manifest\.json/);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(path.dirname(target))).toEqual([]);

    // No manifest: not a (complete) backup.
    rmSync(path.join(damaged, MANIFEST_FILE));
    const noManifest = await hearth(['restore', damaged], { DATA_DIR: target });
    expect(noManifest.code).toBe(4);
    expect(noManifest.stderr).toContain('holds no manifest.json');

    // A DATA_DIR with anything in it is never overwritten.
    mkdirSync(target);
    writeFileSync(path.join(target, 'notes.txt'), 'mine');
    const refusedFull = await hearth(['restore', good], { DATA_DIR: target });
    expect(refusedFull.code).toBe(5);
    expect(refusedFull.stderr).toContain(`DATA_DIR ${target} is not empty`);
    expect(readdirSync(target)).toEqual(['notes.txt']);

    // A backup of the embedded database, with DATABASE_URL set.
    const other = await hearth(['restore', good], { DATA_DIR: path.join(path.dirname(target), 'other'), DATABASE_URL: 'postgres://hearth@127.0.0.1:1/hearth' });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('unset DATABASE_URL');

    const usage = await hearth(['restore'], {});
    expect(usage.code).toBe(2);
    const help = await hearth(['backup', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
  }, 240_000);

  it('the server backs up on schedule, prunes to BACKUP_KEEP only after a new backup, and a failing schedule is one log line', async () => {
    const backupDir = tempDir('scheduled');
    // 0.0002 h: 0.72 s between backups.
    const server = await startServer({ BACKUP_DIR: backupDir, BACKUP_INTERVAL_HOURS: '0.0002', BACKUP_KEEP: '2' });
    servers.push(server.child);
    roots.push(server.dataDir);
    const written = () => server.output().match(/Scheduled backup written and checked/g)?.length ?? 0;
    await new Promise<void>((resolve) => {
      const look = () => {
        if (written() >= 3) {
          server.child.stdout.off('data', look);
          resolve();
        }
      };
      server.child.stdout.on('data', look);
      look();
    });
    const complete = listBackups(backupDir);
    // The third backup pruned the first; at most one more has started since.
    expect(complete.length).toBeGreaterThanOrEqual(2);
    expect(complete.length).toBeLessThanOrEqual(3);
    expect(server.output()).toContain('removed 1 older (BACKUP_KEEP=2)');
    await stop(server.child);
    expect(listBackups(backupDir).length).toBeLessThanOrEqual(3);

    // A BACKUP_DIR that cannot be made (a file stands in its path): one line per attempt, and the server serves.
    const blocker = path.join(tempDir('blocked'), 'a-file');
    writeFileSync(blocker, '');
    const failing = await startServer({ BACKUP_DIR: path.join(blocker, 'backups'), BACKUP_INTERVAL_HOURS: '1' });
    servers.push(failing.child);
    roots.push(failing.dataDir);
    await new Promise<void>((resolve) => {
      const look = () => {
        if (failing.output().includes('Scheduled backup into')) {
          failing.child.stdout.off('data', look);
          resolve();
        }
      };
      failing.child.stdout.on('data', look);
      look();
    });
    const line = failing.output().split('\n').find((l) => l.includes('Scheduled backup into'))!;
    expect(JSON.parse(line).msg).toMatch(/^Scheduled backup into .*\/a-file\/backups failed: Cannot create the backup folder .* \(ENOTDIR\).*Earlier backups are kept; the next attempt is in 1 h$/);
    const health = await fetch(`${failing.base}/api/v1/memory`, { headers: { authorization: `Bearer ${failing.token}` } });
    expect(health.status).toBe(200);
    await stop(failing.child);
  }, 240_000);
});

describe.skipIf(!TEST_DATABASE_URL)('hearth backup and hearth restore (PostgreSQL)', () => {
  const admin = () => new pg.Client({ connectionString: TEST_DATABASE_URL });
  const databases: string[] = [];
  const urlOf = (name: string) => {
    const url = new URL(TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    return url.toString();
  };
  async function createDatabase(): Promise<string> {
    const name = `hearth_backup_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const client = admin();
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    databases.push(name);
    return name;
  }
  afterAll(async () => {
    const client = admin();
    await client.connect();
    for (const name of databases) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  });

  it('pg_dump with the key file, restored into an empty database: the entries and the vault secrets work', async () => {
    const source = urlOf(await createDatabase());
    const server = await startServer({ DATABASE_URL: source });
    servers.push(server.child);
    roots.push(server.dataDir);
    const secret = `sk-${randomBytes(12).toString('hex')}`;
    const created = await request(server.base, server.token, 'POST', '/api/v1/vault/tokens', { name: 'mail', service: 'mail', token: secret, websiteUrl: 'https://example.com' });
    expect(created.status).toBe(201);
    for (let i = 0; i < 20; i++) expect((await request(server.base, server.token, 'POST', '/api/v1/memory', { content: `pg entry ${i}` })).status).toBe(201);

    const backupDir = tempDir('pg-backups');
    const backup = await hearth(['backup', backupDir, '--json'], { DATA_DIR: server.dataDir, DATABASE_URL: source });
    expect(backup.code, backup.stderr).toBe(0);
    const written = result(backup).path;
    expect(readdirSync(written).sort()).toEqual(['hearth.pgdump', 'manifest.json', 'vault-keys.json']);
    // Without pg_dump on PATH: the key material and the manifest, and the exact command to run.
    const noDump = await hearth(['backup', tempDir('pg-no-dump'), '--json'], { DATA_DIR: server.dataDir, DATABASE_URL: source, PATH: tempDir('empty-path') });
    expect(noDump.code).toBe(3);
    const partial = JSON.parse(noDump.stdout) as { complete: boolean; path: string; manifest: { database: { file: null; command: string } } };
    expect(partial.complete).toBe(false);
    expect(partial.manifest.database.command).toMatch(/^pg_dump --format=custom --no-owner --no-privileges --file=.*hearth\.pgdump --dbname='postgres:\/\/[^']+'$/);
    expect(readdirSync(partial.path).sort()).toEqual(['manifest.json', 'vault-keys.json']);
    // As the schedule runs it: a failure, and nothing written.
    const strictDir = tempDir('pg-strict');
    const strict = await hearth(['backup', strictDir, '--require-database'], { DATA_DIR: server.dataDir, DATABASE_URL: source, PATH: tempDir('empty-path') });
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('pg_dump is not on PATH');
    expect(readdirSync(strictDir)).toEqual([]);
    await stop(server.child);

    // Not into a database that holds tables.
    const full = await hearth(['restore', written], { DATA_DIR: path.join(tempDir('pg-full'), 'data'), DATABASE_URL: source });
    expect(full.code).toBe(5);

    const target = urlOf(await createDatabase());
    const restoredDir = path.join(tempDir('pg-restored'), 'data');
    const restore = await hearth(['restore', written], { DATA_DIR: restoredDir, DATABASE_URL: target });
    expect(restore.code, restore.stderr).toBe(0);
    const again = await serveOn({ DATA_DIR: restoredDir, DATABASE_URL: target });
    const stored = await listAll(again.base, server.token);
    expect(stored.filter((c) => c.startsWith('pg entry')).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `pg entry ${i}`).sort());
    const revealed = await request(again.base, server.token, 'GET', `/api/v1/vault/tokens/${created.body.data.id}/reveal`);
    expect(revealed.body.data.token).toBe(secret);
    await stop(again.child);
  }, 240_000);

  it('with two nodes on one database, one runs the scheduled backups; when it stops, the other takes over', async () => {
    const url = urlOf(await createDatabase());
    const env = { DATABASE_URL: url, VAULT_KEY: randomBytes(32).toString('base64'), BACKUP_INTERVAL_HOURS: '0.0002', BACKUP_KEEP: '3' };
    const dirA = tempDir('node-a');
    const dirB = tempDir('node-b');
    const a = await startServer({ ...env, BACKUP_DIR: dirA });
    servers.push(a.child);
    roots.push(a.dataDir);
    const b = await serveOn({ ...env, DATA_DIR: tempDir('node-b-data'), BACKUP_DIR: dirB });
    const count = (output: () => string) => output().match(/Scheduled backup written and checked/g)?.length ?? 0;
    const until = (child: RunningServer['child'], test: () => boolean) =>
      new Promise<void>((resolve) => {
        const look = () => {
          if (test()) {
            child.stdout.off('data', look);
            resolve();
          }
        };
        child.stdout.on('data', look);
        look();
      });
    // A started first and took the lock at its first tick: it backs up, B does not.
    await until(a.child, () => count(a.output) >= 3);
    expect(count(b.output)).toBe(0);
    expect(listBackups(dirB)).toEqual([]);
    // A stops, its session and lock with it: B takes over at its next tick.
    await stop(a.child);
    await until(b.child, () => count(b.output) >= 1);
    expect(listBackups(dirB).length).toBeGreaterThanOrEqual(1);
    expect(b.output()).toContain('is not in the backup: a restored server needs the same VAULT_KEY');
    await stop(b.child);
  }, 240_000);
});
