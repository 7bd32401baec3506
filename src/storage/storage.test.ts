import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/harness.js';
import { ignoreFailure } from '../lib/ignore-failure.js';
import { createRootKeys } from '../modules/keyring/keyring.watch.js';
import { MIGRATION_NAMES } from './migrations/index.js';
import { openStorage } from './storage.js';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

describe('storage', () => {
  // On PostgreSQL each test app has a schema of its own in one database. Kysely's migrator,
  // left to itself, saw another schema's kysely_migration tables, skipped creating its own
  // and failed ("relation kysely_migration_lock does not exist") whenever two apps overlapped.
  it('migrates a new database while another one is open beside it', async () => {
    const first = await createTestApp();
    try {
      const second = await createTestApp();
      try {
        const a = await first.createOwner();
        const b = await second.createOwner();
        expect(a.role).toBe('admin');
        expect(b.role).toBe('admin');
        const users = await second.storage.db.selectFrom('users').select('id').execute();
        expect(users.map((u) => u.id)).toEqual([b.id]);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });

  // Start-up loads most of its code once the schema changes are under way (main.ts): that point
  // must come, before the schema is ready on a new database, and at once on an up-to-date one.
  it('says when the schema changes are under way: before they are done on a new database, and on every later start', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-test-'));
    const pgSchema = TEST_DATABASE_URL ? `t_${randomBytes(6).toString('hex')}` : undefined;
    const open = () => openStorage({ dataDir, databaseUrl: TEST_DATABASE_URL, rootKeys: createRootKeys({ dataDir }), ...(pgSchema ? { pgSchema } : {}) });
    try {
      // On PostgreSQL, another connection looks for the new schema's tables as soon as the
      // changes are under way: they are not committed yet (the first start's changes take the
      // database server a good fraction of a second).
      const observer = TEST_DATABASE_URL ? new pg.Client({ connectionString: TEST_DATABASE_URL }) : undefined;
      await observer?.connect();
      for (const start of ['new', 'again']) {
        const storage = await open();
        const order: string[] = [];
        let committedWhenUnderWay: boolean | undefined;
        await Promise.all([
          storage.schemaUnderWay.then(async () => {
            order.push('under way');
            const found = await observer?.query(`SELECT to_regclass('${pgSchema}.kysely_migration') IS NOT NULL AS found`);
            committedWhenUnderWay = found?.rows[0].found;
          }),
          storage.ready.then(() => order.push('ready')),
        ]);
        expect(order, start).toEqual(['under way', 'ready']);
        if (observer) expect(committedWhenUnderWay, start).toBe(start === 'again');
        // The schema is complete: a table of one of the later migrations answers.
        await storage.db.selectFrom('webhook_attempts').select('id').limit(1).execute();
        await storage.close();
      }
      await observer?.end();
    } finally {
      if (pgSchema && TEST_DATABASE_URL) {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`).finally(() => client.end());
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  // A first start runs every migration in one SQLite transaction that holds the write lock: a
  // second process starting on the same new file at that moment waits, then finds nothing to
  // do (without the lock both would run the migrations, and the second fail on existing tables).
  it.runIf(!TEST_DATABASE_URL)('migrates a new SQLite file once when two processes start on it together', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-test-'));
    const script = `
      import { openStorage } from './src/storage/storage.ts';
      import { createRootKeys } from './src/modules/keyring/keyring.watch.ts';
      const dataDir = process.env.MIGRATE_DIR;
      const storage = await openStorage({ dataDir, rootKeys: createRootKeys({ dataDir }) });
      await storage.ready;
      await storage.close();`;
    const start = () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          cwd: path.resolve(import.meta.dirname, '../..'),
          env: { ...process.env, MIGRATE_DIR: dataDir },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('close', (code) => resolve({ code, stderr }));
      });
    try {
      const outcomes = await Promise.all([start(), start()]);
      expect(outcomes).toEqual([
        { code: 0, stderr: '' },
        { code: 0, stderr: '' },
      ]);
      const storage = await openStorage({ dataDir, rootKeys: createRootKeys({ dataDir }) });
      try {
        await storage.ready;
        const recorded = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(storage.db);
        expect(recorded.rows.map((row) => row.name)).toEqual([...MIGRATION_NAMES]);
      } finally {
        await storage.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  // A restart of PostgreSQL, an administrator or an idle-connection limit ends connections the
  // pool holds idle. Unheard, the pool's 'error' for one ended the whole server.
  it.skipIf(!TEST_DATABASE_URL)('lives on when the database ends an idle connection, and says so', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-storage-'));
    const pgSchema = `t_${randomBytes(6).toString('hex')}`;
    const storage = await openStorage({ dataDir, databaseUrl: TEST_DATABASE_URL, pgSchema, rootKeys: createRootKeys({ dataDir }) });
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    try {
      await storage.ready;
      const lost = new Promise<Error>((resolve) => storage.onConnectionLost(resolve));
      const backend = async () => (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(storage.db)).rows[0]!.pid;
      const pid = await backend();
      await admin.connect();
      const ended = await admin.query('SELECT pg_terminate_backend($1) AS ended', [pid]);
      expect(ended.rows[0].ended).toBe(true);
      expect((await lost).message).toMatch(/terminating connection/);
      // The next query gets a new connection.
      expect(await backend()).not.toBe(pid);
      await storage.db.selectFrom('users').select('id').execute();
    } finally {
      await storage.close();
      await ignoreFailure(admin.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`), 'a schema left behind holds nothing another test reads');
      await ignoreFailure(admin.end(), 'the test is over');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
