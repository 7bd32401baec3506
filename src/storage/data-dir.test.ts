import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/harness.js';
import { ConfigError } from '../config.js';
import { dataDirWarning, prepareDataDir } from './data-dir.js';
import { createRootKeys } from '../modules/keyring/keyring.watch.js';
import { createStorage } from './storage.js';

const mode = (file: string) => statSync(file).mode & 0o777;

let root: string;
let umask: number;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'hearth-data-dir-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
// The usual umask, under which files were made world-readable.
beforeEach(() => {
  umask = process.umask(0o022);
});
afterEach(() => {
  process.umask(umask);
});

describe.skipIf(process.platform === 'win32')('DATA_DIR', () => {
  it('is created with its missing parents, mode 0700 whatever the umask', () => {
    const dir = path.join(root, 'fresh', 'nested', 'data');
    prepareDataDir(dir);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(root, 'fresh'))).toBe(0o700);
  });

  it('one that exists is left as it is', () => {
    const dir = path.join(root, 'existing');
    mkdirSync(dir, { mode: 0o750 });
    chmodSync(dir, 0o750);
    prepareDataDir(dir);
    expect(mode(dir)).toBe(0o750);
  });

  it('a path it cannot be made at is a ConfigError saying why and what to set', () => {
    const file = path.join(root, 'a-file');
    writeFileSync(file, '');
    expect(() => prepareDataDir(path.join(file, 'data'))).toThrow(ConfigError);
    expect(() => prepareDataDir(path.join(file, 'data'))).toThrow(/Cannot create DATA_DIR .*a part of the path is a file \(ENOTDIR\)\. Set DATA_DIR/);
    expect(() => prepareDataDir(file)).toThrow(/is a file, not a folder: set DATA_DIR/);
  });

  it('the embedded database and its -wal and -shm files are 0600, the folder 0700', async () => {
    const dir = path.join(root, 'sqlite', 'data');
    const storage = await createStorage({ dataDir: dir, rootKeys: createRootKeys({ dataDir: dir }) });
    try {
      // Migrations have written; WAL keeps -wal and -shm while the database is open.
      expect(mode(dir)).toBe(0o700);
      for (const name of ['hearth.db', 'hearth.db-wal', 'hearth.db-shm']) expect(mode(path.join(dir, name)), name).toBe(0o600);
      expect(dataDirWarning(dir, { database: true })).toBeUndefined();
    } finally {
      await storage.close();
    }
  });

  it('the vault key file made at first use is 0600 too', async () => {
    const t = await createTestApp();
    try {
      await t.container.keyring.ready();
      expect(mode(path.join(t.config.dataDir, 'vault-keys.json'))).toBe(0o600);
    } finally {
      await t.close();
    }
  });

  it('a start-up warning names what others can read and the commands that fix it', () => {
    const dir = path.join(root, 'loose');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    writeFileSync(path.join(dir, 'hearth.db'), '');
    chmodSync(path.join(dir, 'hearth.db'), 0o644);
    const warning = dataDirWarning(dir, { database: true });
    expect(warning).toBe(
      `DATA_DIR can be read by other users: ${dir} (mode 755), hearth.db (mode 644). ` +
        `It holds the database and the vault key file; run: chmod 700 ${dir} && chmod 600 ${dir}/hearth.db*`,
    );
    // With PostgreSQL only the folder matters.
    expect(dataDirWarning(dir, { database: false })).toBe(
      `DATA_DIR can be read by other users: ${dir} (mode 755). It holds the database and the vault key file; run: chmod 700 ${dir}`,
    );
    chmodSync(dir, 0o700);
    chmodSync(path.join(dir, 'hearth.db'), 0o600);
    expect(dataDirWarning(dir, { database: true })).toBeUndefined();
  });
});
