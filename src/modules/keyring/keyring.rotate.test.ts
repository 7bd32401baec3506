/**
 * Root-key rotation while an app is running: the app keeps its in-memory state (cached data
 * keys, the root keys it loaded), a separate keyring plays the `npm run vault:rotate` process.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type Owner, type TestApp } from '../../../test/harness.js';
import { rootKeyId } from './keyring.crypto.js';
import { keyFilePath } from './keyring.file.js';
import { createKeyring } from './keyring.service.js';
import { RotationError, rotateVaultKeys, vaultKeyStatus } from './keyring.rotate.js';

const apps: TestApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

async function app(config: Parameters<typeof createTestApp>[0] = {}): Promise<TestApp> {
  const t = await createTestApp(config);
  apps.push(t);
  return t;
}

async function store(t: TestApp, owner: Owner, secret: string): Promise<string> {
  const res = await t.request('POST', '/api/v1/vault/tokens', {
    token: owner.token,
    body: { name: `token ${secret.slice(-6)}`, service: 'Example', token: secret, websiteUrl: 'https://example.com' },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}

async function reveal(t: TestApp, owner: Owner, id: string): Promise<string> {
  const res = await t.request('GET', `/api/v1/vault/tokens/${id}/reveal`, { token: owner.token });
  expect(res.status, res.text).toBe(200);
  return res.body.data.token;
}

const activeKeyOf = (t: TestApp) => JSON.parse(readFileSync(keyFilePath(t.config.dataDir), 'utf8')) as { activeKeyId: string; keys: Array<{ id: string }> };

/** Opens every stored secret with a keyring that has never run (as after a restart). */
async function openAllFresh(t: TestApp, expected: Map<string, string>, options: { vaultKey?: string; previousKeys?: string[] } = {}) {
  const fresh = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir, ...options });
  await fresh.ready();
  const rows = await t.storage.db.selectFrom('vault_tokens').select(['id', 'owner_id', 'secret_sealed']).execute();
  expect(rows.length).toBe(expected.size);
  for (const row of rows) {
    expect(await fresh.open(row.owner_id, `vault_tokens:${row.id}`, row.secret_sealed)).toBe(expected.get(row.id));
  }
}

describe('key-file mode', () => {
  it('rotates and retires the old root key under a running app, which keeps reading old values and writing new ones', async () => {
    const t = await app();
    const expected = new Map<string, string>();
    const alice = await t.createOwner('Alice');
    const aliceOld = await store(t, alice, 'alice-old-secret-0001');
    expected.set(aliceOld, 'alice-old-secret-0001');

    // Xavier's data key is made by another process (a previous run): this app never unwrapped it.
    const xavier = await t.createOwner('Xavier');
    const previousRun = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir });
    await previousRun.seal(xavier.id, 'warm-up', 'x');
    const oldKey = activeKeyOf(t).activeKeyId;

    const rotator = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir });
    const lines: string[] = [];
    const report = await rotateVaultKeys(rotator, { retire: true, batchSize: 1, log: (l) => lines.push(l) });
    expect(report.mode).toBe('file');
    expect(report.added).toBe(report.activeKeyId);
    expect(report.activeKeyId).not.toBe(oldKey);
    expect(report.rewrapped).toBe(2);
    expect(report.failed).toEqual([]);
    expect(report.retired).toEqual([oldKey]);
    expect(lines.join('\n')).not.toMatch(/[A-Za-z0-9+/]{43}=/); // no key printed

    const file = activeKeyOf(t);
    expect(file.activeKeyId).toBe(report.activeKeyId);
    expect(file.keys.map((k) => k.id)).toEqual([report.activeKeyId]);
    const wrappedBy = await t.storage.db.selectFrom('vault_data_keys').select('root_key_id').distinct().execute();
    expect(wrappedBy.map((r) => r.root_key_id)).toEqual([report.activeKeyId]);

    // The running app, without a restart: old values, new values, an owner it never saw, a new owner.
    expect(await reveal(t, alice, aliceOld)).toBe('alice-old-secret-0001');
    const aliceNew = await store(t, alice, 'alice-new-secret-0002');
    expected.set(aliceNew, 'alice-new-secret-0002');
    expect(await reveal(t, alice, aliceNew)).toBe('alice-new-secret-0002');
    const xavierNew = await store(t, xavier, 'xavier-secret-0003');
    expected.set(xavierNew, 'xavier-secret-0003');
    expect(await reveal(t, xavier, xavierNew)).toBe('xavier-secret-0003');
    const nina = await t.createOwner('Nina');
    const ninaToken = await store(t, nina, 'nina-secret-0004');
    expected.set(ninaToken, 'nina-secret-0004');
    const ninaKey = await t.storage.db.selectFrom('vault_data_keys').select('root_key_id').where('owner_id', '=', nina.id).executeTakeFirstOrThrow();
    expect(ninaKey.root_key_id).toBe(report.activeKeyId);

    // After a restart (only the new key on disk), everything still opens.
    await openAllFresh(t, expected);
  });

  it('rotation runs while the app serves reads and writes at the same time', async () => {
    const t = await app();
    const expected = new Map<string, string>();
    const owners: Owner[] = [];
    for (let i = 0; i < 12; i++) {
      const owner = await t.createOwner(`Owner ${i}`);
      owners.push(owner);
      const secret = `secret-before-${i}-${randomBytes(4).toString('hex')}`;
      expected.set(await store(t, owner, secret), secret);
    }
    const ids = [...expected.keys()];
    const rotator = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir });
    const traffic = (async () => {
      for (let round = 0; round < 3; round++) {
        await Promise.all(
          owners.map(async (owner, i) => {
            expect(await reveal(t, owner, ids[i]!)).toBe(expected.get(ids[i]!));
            const secret = `secret-during-${round}-${i}`;
            expected.set(await store(t, owner, secret), secret);
          }),
        );
        const late = await t.createOwner(`Late ${round}`);
        const secret = `late-${round}`;
        expected.set(await store(t, late, secret), secret);
      }
    })();
    const [report] = await Promise.all([rotateVaultKeys(rotator, { retire: true, batchSize: 3 }), traffic]);
    expect(report.failed).toEqual([]);
    expect(activeKeyOf(t).keys).toHaveLength(1);
    const wrappedBy = await t.storage.db.selectFrom('vault_data_keys').select('root_key_id').distinct().execute();
    expect(wrappedBy.map((r) => r.root_key_id)).toEqual([report.activeKeyId]);
    await openAllFresh(t, expected);
  });

  it('without --retire keeps the older keys; a given key becomes the active one; --rewrap-only adds none', async () => {
    const t = await app();
    const owner = await t.createOwner();
    const expected = new Map([[await store(t, owner, 'kept-secret-1'), 'kept-secret-1']]);
    const first = activeKeyOf(t).activeKeyId;
    const given = randomBytes(32);
    const rotator = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir });
    const report = await rotateVaultKeys(rotator, { newKey: given });
    expect(report.activeKeyId).toBe(rootKeyId(given));
    expect(report.retired).toEqual([]);
    expect(activeKeyOf(t).keys.map((k) => k.id)).toEqual([first, rootKeyId(given)]);

    const again = await rotateVaultKeys(rotator, { rewrapOnly: true });
    expect(again).toMatchObject({ added: null, rewrapped: 0, activeKeyId: rootKeyId(given) });
    const status = await vaultKeyStatus(rotator);
    expect(status).toEqual(
      expect.arrayContaining([
        { id: first, active: false, known: true, dataKeys: 0 },
        { id: rootKeyId(given), active: true, known: true, dataKeys: 1 },
      ]),
    );
    expect(await reveal(t, owner, [...expected.keys()][0]!)).toBe('kept-secret-1');
    await openAllFresh(t, expected);
  });
});

describe('VAULT_KEY mode', () => {
  it('re-wraps with the new VAULT_KEY, and names the previous keys that can be dropped', async () => {
    const oldKey = randomBytes(32).toString('base64');
    const newKey = randomBytes(32).toString('base64');
    const t = await app({ config: { vaultKey: oldKey } });
    const owner = await t.createOwner();
    const expected = new Map([[await store(t, owner, 'env-secret-1'), 'env-secret-1']]);

    // The operator set VAULT_KEY=new, VAULT_PREVIOUS_KEYS=old and restarted; then runs the command.
    const rotator = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir, vaultKey: newKey, previousKeys: [oldKey] });
    await expect(rotateVaultKeys(rotator, { newKey: randomBytes(32) })).rejects.toBeInstanceOf(RotationError);
    const report = await rotateVaultKeys(rotator, { retire: true });
    expect(report).toMatchObject({ mode: 'env', added: null, rewrapped: 1, retired: [], activeKeyId: rootKeyId(Buffer.from(newKey, 'base64')) });
    expect(report.unused).toEqual([rootKeyId(Buffer.from(oldKey, 'base64'))]);

    // Then VAULT_PREVIOUS_KEYS is emptied: the new key alone opens everything.
    await openAllFresh(t, expected, { vaultKey: newKey });
  });

  it('moving from the key file to VAULT_KEY: the file key read as an older key, then re-wrapped', async () => {
    const t = await app();
    const owner = await t.createOwner();
    const expected = new Map([[await store(t, owner, 'file-secret-1'), 'file-secret-1']]);
    const newKey = randomBytes(32).toString('base64');
    const rotator = createKeyring({ db: t.storage.db, dataDir: t.config.dataDir, vaultKey: newKey });
    const report = await rotateVaultKeys(rotator, { retire: true });
    expect(report.rewrapped).toBe(1);
    expect(report.unused).toEqual([activeKeyOf(t).activeKeyId]);
    await openAllFresh(t, expected, { vaultKey: newKey });
  });
});

describe('npm run vault:rotate', () => {
  it.skipIf(ENGINE !== 'sqlite')('the command rotates the key file of a running app (SQLite)', async () => {
    const t = await app();
    const owner = await t.createOwner();
    const id = await store(t, owner, 'cli-secret-1');
    const oldKey = activeKeyOf(t).activeKeyId;
    const root = path.resolve(import.meta.dirname, '../../..');
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), path.join(root, 'scripts/vault-rotate.ts'), ...args], {
        cwd: t.config.dataDir, // no .env there
        env: { PATH: process.env.PATH, DATA_DIR: t.config.dataDir, LOG_LEVEL: 'silent' },
      });
    const { stdout } = await run(['--retire']);
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(report).toMatchObject({ mode: 'file', rewrapped: 1, retired: [oldKey], failed: [] });
    const status = await run(['--status']);
    expect(status.stdout).toContain(`${report.activeKeyId}  active  wraps 1 data key(s)`);
    expect(status.stdout).not.toContain(oldKey);

    expect(await reveal(t, owner, id)).toBe('cli-secret-1');
    const next = await store(t, owner, 'cli-secret-2');
    expect(await reveal(t, owner, next)).toBe('cli-secret-2');
    await expect(run(['--bogus'])).rejects.toMatchObject({ code: 2 });
  });
});
