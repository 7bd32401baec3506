import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Owner, type TestApp } from '../../../test/harness.js';
import { ConfigError, loadConfig } from '../../config.js';
import { AppError } from '../../http/errors.js';
import { rootKeyId, VaultIntegrityError } from './keyring.crypto.js';
import { keyFilePath } from './keyring.file.js';
import { createKeyring } from './keyring.service.js';

let t: TestApp;
let alice: Owner;
let bob: Owner;

beforeAll(async () => {
  t = await createTestApp();
  alice = await t.createOwner('Alice');
  bob = await t.createOwner('Bob');
});
afterAll(async () => t.close());

async function integrityError(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('INTEGRITY_ERROR');
  expect((error as AppError).cause).toBeInstanceOf(VaultIntegrityError);
  return error as AppError;
}

describe('seal and open', () => {
  it('round-trips, with a fresh IV each time and the v1.<dataKeyId>.<iv>.<ct>.<tag> form', async () => {
    const { keyring } = t.container;
    const secret = 'sk-live-ünïcødé-🔑-0123456789';
    const a = await keyring.seal(alice.id, 'vault_tokens:vtk_1', secret);
    const b = await keyring.seal(alice.id, 'vault_tokens:vtk_1', secret);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.vdk_[0-9A-Z]{26}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(a).not.toContain(Buffer.from(secret).toString('base64url').slice(0, 10));
    expect(await keyring.open(alice.id, 'vault_tokens:vtk_1', a)).toBe(secret);
    expect(await keyring.open(alice.id, 'vault_tokens:vtk_1', b)).toBe(secret);
    expect(await keyring.open(alice.id, 'ctx', await keyring.seal(alice.id, 'ctx', ''))).toBe('');
  });

  it('one data key per owner, stored wrapped with the root key id beside it', async () => {
    const { keyring } = t.container;
    const sealedA = await keyring.seal(alice.id, 'x', 'a');
    const sealedB = await keyring.seal(bob.id, 'x', 'b');
    const idA = sealedA.split('.')[1]!;
    const idB = sealedB.split('.')[1]!;
    expect(idA).not.toBe(idB);
    const rows = await t.storage.db.selectFrom('vault_data_keys').selectAll().where('id', 'in', [idA, idB]).execute();
    expect(rows.map((r) => r.owner_id).sort()).toEqual([alice.id, bob.id].sort());
    const file = JSON.parse(readFileSync(keyFilePath(t.config.dataDir), 'utf8'));
    for (const row of rows) {
      expect(row.root_key_id).toBe(file.activeKeyId);
      expect(Buffer.from(row.wrapped_key, 'base64url')).toHaveLength(12 + 32 + 16);
    }
    // Same owner again: the same data key.
    expect((await keyring.seal(alice.id, 'y', 'c')).split('.')[1]).toBe(idA);
  });

  it('does not open with another context, another owner, or altered bytes; the error holds no secret', async () => {
    const { keyring } = t.container;
    const secret = 'the-plaintext-secret-value';
    const sealed = await keyring.seal(alice.id, 'vault_tokens:vtk_A', secret);
    const parts = sealed.split('.');
    const flip = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
    const altered = (index: number) => parts.map((p, i) => (i === index ? flip(p) : p)).join('.');
    // Each opened in turn: a rejection waits for no one (each open reports to the audit log first).
    const attempts = [
      () => keyring.open(alice.id, 'vault_tokens:vtk_B', sealed),
      () => keyring.open(bob.id, 'vault_tokens:vtk_A', sealed),
      () => keyring.open(alice.id, 'vault_tokens:vtk_A', altered(2)), // IV
      () => keyring.open(alice.id, 'vault_tokens:vtk_A', altered(3)), // ciphertext
      () => keyring.open(alice.id, 'vault_tokens:vtk_A', altered(4)), // tag
      () => keyring.open(alice.id, 'vault_tokens:vtk_A', parts.slice(0, 4).join('.') + '.' + parts[4]!.slice(0, 8)), // truncated tag
      () => keyring.open(alice.id, 'vault_tokens:vtk_A', 'v2.' + sealed.slice(3)),
      () => keyring.open(alice.id, 'vault_tokens:vtk_A', 'not sealed at all'),
      () => keyring.open(alice.id, 'vault_tokens:vtk_A', sealed.replace(/^v1\.vdk_[0-9A-Z]+/, 'v1.vdk_01AAAAAAAAAAAAAAAAAAAAAAAA')),
    ];
    for (const attempt of attempts) {
      const error = await integrityError(attempt());
      expect(error.message).not.toContain(secret);
      expect(String((error.cause as Error).message)).not.toContain(secret);
    }
  });

  it('a data key row moved to another owner does not unwrap', async () => {
    const owner = await t.createOwner('Carol');
    const sealed = await t.container.keyring.seal(owner.id, 'ctx', 'carol-secret');
    // A fresh keyring (no cache) over the same keys, as after a restart.
    const fresh = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir });
    expect(await fresh.open(owner.id, 'ctx', sealed)).toBe('carol-secret');
    const dataKeyId = sealed.split('.')[1]!;
    await t.storage.db.updateTable('vault_data_keys').set({ owner_id: bob.id }).where('id', '=', dataKeyId).execute();
    const again = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir });
    await integrityError(again.open(bob.id, 'ctx', sealed));
    await integrityError(again.open(owner.id, 'ctx', sealed));
  });
});

describe('the key file', () => {
  it('is generated once, with mode 0600, in the data directory', () => {
    const file = keyFilePath(t.config.dataDir);
    expect(existsSync(file)).toBe(true);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    const content = JSON.parse(readFileSync(file, 'utf8'));
    expect(content).toMatchObject({ format: 'hearth-vault-keys', version: 1 });
    expect(content.keys).toHaveLength(1);
    const key = Buffer.from(content.keys[0].key, 'base64');
    expect(key).toHaveLength(32);
    expect(content.keys[0].id).toBe(rootKeyId(key));
    expect(content.activeKeyId).toBe(content.keys[0].id);
  });

  it('a keyring over an existing file uses it and does not replace it', async () => {
    const file = keyFilePath(t.config.dataDir);
    const before = readFileSync(file, 'utf8');
    const sealed = await t.container.keyring.seal(alice.id, 'ctx', 'kept');
    const second = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir });
    await second.ready();
    expect(await second.open(alice.id, 'ctx', sealed)).toBe('kept');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('refuses a key file other users can read', () => {
    if (process.platform === 'win32') return;
    const file = keyFilePath(t.config.dataDir);
    chmodSync(file, 0o644);
    try {
      expect(() => createKeyring({ db: t.storage.db, dataDir: t.config.dataDir })).toThrow(/chmod 600/);
    } finally {
      chmodSync(file, 0o600);
    }
  });

  it('refuses to make a new key file when the database already holds data keys (a lost key file)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-keyring-'));
    try {
      const keyring = createKeyring({ db: t.storage.db, dataDir: dir });
      const error = await keyring.ready().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/key file .* is missing/);
      expect(existsSync(keyFilePath(dir))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a damaged key file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-keyring-'));
    try {
      const file = keyFilePath(dir);
      const write = (text: string) => {
        if (existsSync(file)) unlinkSync(file);
        writeFileSync(file, text, { mode: 0o600 });
      };
      write('{ not json');
      expect(() => createKeyring({ db: t.storage.db, dataDir: dir })).toThrow(/not valid JSON/);
      const key = randomBytes(32);
      write(JSON.stringify({ format: 'hearth-vault-keys', version: 1, activeKeyId: 'rk_wrong', keys: [{ id: 'rk_wrong', key: key.toString('base64') }] }));
      expect(() => createKeyring({ db: t.storage.db, dataDir: dir })).toThrow(/does not match its id/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('VAULT_KEY', () => {
  it('is used instead of a key file; a different key refuses to start; VAULT_PREVIOUS_KEYS reads the old data', async () => {
    const app = await createTestApp({ config: { vaultKey: randomBytes(32).toString('base64') } });
    try {
      const owner = await app.createOwner('Env');
      const sealed = await app.container.keyring.seal(owner.id, 'ctx', 'env-secret');
      expect(existsSync(keyFilePath(app.config.dataDir))).toBe(false);
      const row = await app.storage.db.selectFrom('vault_data_keys').select('root_key_id').where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
      expect(row.root_key_id).toBe(rootKeyId(Buffer.from(app.config.vaultKey!, 'base64')));

      const newKey = randomBytes(32).toString('base64');
      const wrong = createKeyring({ db: app.storage.db, dataDir: app.config.dataDir, vaultKey: newKey });
      const error = await wrong.ready().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(row.root_key_id);
      expect((error as Error).message).not.toContain(app.config.vaultKey!);

      const rotated = createKeyring({ db: app.storage.db, dataDir: app.config.dataDir, vaultKey: newKey, previousKeys: [app.config.vaultKey!] });
      await rotated.ready();
      expect(await rotated.open(owner.id, 'ctx', sealed)).toBe('env-secret');
    } finally {
      await app.close();
    }
  });

  it('is checked at start: 32 bytes of base64, never echoed', () => {
    const good = randomBytes(32).toString('base64');
    expect(loadConfig({ VAULT_KEY: good }).vaultKey).toBe(good);
    expect(loadConfig({ VAULT_KEY: randomBytes(32).toString('base64url') }).vaultKey).toBeDefined();
    expect(loadConfig({}).vaultPreviousKeys).toEqual([]);
    const two = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
    expect(loadConfig({ VAULT_PREVIOUS_KEYS: two.join(',') }).vaultPreviousKeys).toEqual(two);
    for (const bad of [randomBytes(16).toString('base64'), 'not base64 at all!', randomBytes(33).toString('base64')]) {
      expect(() => loadConfig({ VAULT_KEY: bad })).toThrow(ConfigError);
      try {
        loadConfig({ VAULT_KEY: bad });
      } catch (e) {
        expect((e as Error).message).not.toContain(bad);
      }
    }
    expect(() => loadConfig({ VAULT_PREVIOUS_KEYS: `${good},short` })).toThrow(/VAULT_PREVIOUS_KEYS \(key 2\)/);
  });
});
