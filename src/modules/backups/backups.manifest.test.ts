// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BackupError, backupName, describeFile, listBackups, MANIFEST_FILE, newManifest, readManifest, verifyFiles, type Manifest } from './backups.manifest.js';
import { pruneBackups } from './backups.schedule.js';

const dirs: string[] = [];
function folder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-manifest-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function backupIn(dir: string, name = backupName(new Date())): Promise<{ dir: string; manifest: Manifest }> {
  const at = path.join(dir, name);
  mkdirSync(at);
  writeFileSync(path.join(at, 'hearth.db'), 'database bytes');
  const manifest = newManifest({
    createdAt: new Date().toISOString(),
    engine: 'sqlite',
    schema: '0034',
    database: { file: 'hearth.db', tables: { memory_entries: 3 } },
    vaultKeys: { source: 'env', file: null, rootKeyIds: [] },
    files: [await describeFile(at, 'hearth.db')],
  });
  writeFileSync(path.join(at, MANIFEST_FILE), JSON.stringify(manifest));
  return { dir: at, manifest };
}

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error as BackupError;
  }
  throw new Error('not refused');
};

describe('readManifest', () => {
  it('reads a backup it wrote, and checks its files', async () => {
    const { dir, manifest } = await backupIn(folder());
    expect(readManifest(dir)).toEqual(manifest);
    await expect(verifyFiles(dir, manifest)).resolves.toBeUndefined();
    writeFileSync(path.join(dir, 'hearth.db'), 'database byteS');
    await expect(verifyFiles(dir, manifest)).rejects.toThrow(/hearth\.db in the backup .* does not match its checksum/);
  });

  it('refuses a manifest naming a file outside the backup, another format, or no JSON, as damaged', async () => {
    const { dir, manifest } = await backupIn(folder());
    for (const name of ['../../etc/passwd', '/etc/passwd', '..', 'a/b']) {
      writeFileSync(path.join(dir, MANIFEST_FILE), JSON.stringify({ ...manifest, files: [{ name, bytes: 1, sha256: 'x' }], database: { ...manifest.database, file: name } }));
      const error = refusal(() => readManifest(dir));
      expect(error.kind).toBe('damaged');
      expect(error.message).toMatch(/is damaged/);
    }
    writeFileSync(path.join(dir, MANIFEST_FILE), JSON.stringify({ ...manifest, format: 'other' }));
    expect(refusal(() => readManifest(dir)).message).toMatch(/is not a Hearth backup manifest/);
    writeFileSync(path.join(dir, MANIFEST_FILE), '{ nope');
    expect(refusal(() => readManifest(dir)).message).toMatch(/is not valid JSON/);
    rmSync(path.join(dir, MANIFEST_FILE));
    expect(refusal(() => readManifest(dir)).message).toMatch(/holds no manifest\.json/);
  });
});

describe('listBackups and pruneBackups', () => {
  it('count only complete backups, oldest first, and prune the oldest beyond the number kept', async () => {
    const dir = folder();
    const names = ['2026-01-01T00-00-00-000Z', '2026-01-02T00-00-00-000Z', '2026-01-03T00-00-00-000Z'].map((time) => `hearth-backup-${time}`);
    for (const name of [...names].reverse()) await backupIn(dir, name);
    // Neither a folder being written nor one without its manifest is a backup.
    mkdirSync(path.join(dir, `.${names[2]}-x.partial.host.1`));
    mkdirSync(path.join(dir, 'hearth-backup-2026-01-04T00-00-00-000Z'));
    expect(listBackups(dir)).toEqual(names);
    expect(pruneBackups(dir, 2)).toEqual([names[0]]);
    expect(listBackups(dir)).toEqual(names.slice(1));
    expect(readdirSync(dir)).not.toContain(names[0]);
    expect(pruneBackups(dir, 5)).toEqual([]);
  });
});
