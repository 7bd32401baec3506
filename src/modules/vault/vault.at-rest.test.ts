/**
 * No vault secret is ever stored or logged in plain text: the database files (SQLite: the
 * database, its WAL and everything else in DATA_DIR; PostgreSQL: every table of the app's
 * schema) and the log lines are searched for each secret after storing, listing, revealing,
 * failing and deleting.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type TestApp } from '../../../test/harness.js';

const logLines: string[] = [];
let t: TestApp;
const secrets = Array.from({ length: 5 }, (_, i) => `PLAINTEXT-MARKER-${i}-a8f3c9d2e1b7`);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

function containsSecret(haystack: Buffer | string): string | undefined {
  const buffer = typeof haystack === 'string' ? Buffer.from(haystack) : haystack;
  for (const secret of secrets) {
    for (const encoding of ['utf8', 'utf16le'] as const) {
      if (buffer.includes(Buffer.from(secret, encoding))) return `${secret} (${encoding})`;
    }
    // A distinctive slice too, in case a value were stored cut or padded.
    if (buffer.includes(Buffer.from(secret.slice(0, 20)))) return `${secret} (prefix)`;
  }
  return undefined;
}

beforeAll(async () => {
  t = await createTestApp({
    logStream: new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
    config: { logLevel: 'trace' },
  });
  const owner = await t.createOwner();
  const ids: string[] = [];
  for (const [i, secret] of secrets.entries()) {
    const res = await t.request('POST', '/api/v1/vault/tokens', {
      token: owner.token,
      body: { name: `n${i}`, service: 'svc', token: secret, websiteUrl: 'https://example.com' },
    });
    expect(res.status).toBe(201);
    ids.push(res.body.data.id);
  }
  // Read paths, a refusal with the secret in the body, a decryption failure, and a delete.
  expect((await t.request('GET', '/api/v1/vault/tokens', { token: owner.token })).status).toBe(200);
  for (const id of ids.slice(0, 3)) {
    const res = await t.request('GET', `/api/v1/vault/tokens/${id}/reveal`, { token: owner.token });
    expect(res.body.data.token).toBe(secrets[ids.indexOf(id)]);
  }
  const bad = await t.request('POST', '/api/v1/vault/tokens', {
    token: owner.token,
    body: { name: 'n', service: 'bad/service', token: secrets[0], websiteUrl: 'https://example.com' },
  });
  expect(bad.status).toBe(400);
  expect(bad.text).not.toContain(secrets[0]);
  const sealed = await t.storage.db.selectFrom('vault_tokens').select('secret_sealed').where('id', '=', ids[1]!).executeTakeFirstOrThrow();
  await t.storage.db.updateTable('vault_tokens').set({ secret_sealed: sealed.secret_sealed }).where('id', '=', ids[2]!).execute();
  expect((await t.request('GET', `/api/v1/vault/tokens/${ids[2]}/reveal`, { token: owner.token })).status).toBe(500);
  expect((await t.request('DELETE', `/api/v1/vault/tokens/${ids[4]}`, { token: owner.token })).status).toBe(200);
});

afterAll(async () => t.close());

describe('secrets at rest', () => {
  it.skipIf(ENGINE !== 'sqlite')('no file in DATA_DIR (hearth.db, its WAL, the key file) holds a secret in plain text', () => {
    const files = filesUnder(t.config.dataDir);
    expect(files.map((f) => path.basename(f))).toEqual(expect.arrayContaining(['hearth.db', 'hearth.db-wal', 'vault-keys.json']));
    const wal = readFileSync(path.join(t.config.dataDir, 'hearth.db-wal'));
    expect(wal.length).toBeGreaterThan(0); // the writes above are in it, not yet checkpointed
    for (const file of files) expect(containsSecret(readFileSync(file)), file).toBeUndefined();
  });

  it.skipIf(ENGINE !== 'postgres')('no table of the schema holds a secret in plain text (PostgreSQL)', async () => {
    const tables = await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
    `.execute(t.storage.db);
    expect(tables.rows.map((r) => r.table_name)).toEqual(expect.arrayContaining(['vault_tokens', 'vault_data_keys', 'audit_log']));
    for (const { table_name } of tables.rows) {
      const rows = await sql`SELECT * FROM ${sql.table(table_name)}`.execute(t.storage.db);
      expect(containsSecret(JSON.stringify(rows.rows)), table_name).toBeUndefined();
    }
  });

  it('the vault_tokens rows hold only sealed values', async () => {
    const rows = await t.storage.db.selectFrom('vault_tokens').select(['secret_sealed', 'hint']).execute();
    expect(rows.length).toBe(4);
    for (const row of rows) {
      expect(row.secret_sealed).toMatch(/^v1\.vdk_/);
      expect(row.hint).toBe('…e1b7');
    }
  });

  it('no log line holds a secret, including the failure logged with its request id', () => {
    expect(logLines.length).toBeGreaterThan(10);
    const failure = logLines.find((line) => line.includes('VaultIntegrityError'));
    expect(failure).toBeDefined();
    expect(containsSecret(logLines.join('\n'))).toBeUndefined();
  });
});
