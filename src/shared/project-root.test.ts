// @engine-independent: files and their times only; no database
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ownScript, projectRoot } from './project-root.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A project folder with a module src/m/worker.ts, its sources dated `sourcesAt`, and dist/ built at `builtAt` (none when undefined). */
function project(sourcesAt: Date, builtAt?: Date): string {
  const root = mkdtempSync(path.join(tmpdir(), 'hearth-own-script-'));
  roots.push(root);
  writeFileSync(path.join(root, 'package.json'), '{}');
  // tsx is found from the project, as in a checkout.
  symlinkSync(path.join(projectRoot(import.meta.url), 'node_modules'), path.join(root, 'node_modules'));
  mkdirSync(path.join(root, 'src', 'm'), { recursive: true });
  mkdirSync(path.join(root, 'daemon'));
  for (const file of ['src/m/worker.ts', 'src/m/caller.ts', 'daemon/build.ts']) writeFileSync(path.join(root, file), '');
  for (const file of ['src/m/worker.ts', 'src/m/caller.ts', 'daemon/build.ts', 'package.json']) utimesSync(path.join(root, file), sourcesAt, sourcesAt);
  if (builtAt) {
    mkdirSync(path.join(root, 'dist', 'src', 'm'), { recursive: true });
    writeFileSync(path.join(root, 'dist', 'src', 'm', 'worker.js'), '');
    writeFileSync(path.join(root, 'dist', '.built'), '');
    utimesSync(path.join(root, 'dist', '.built'), builtAt, builtAt);
  }
  return root;
}

// Around now: the installed libraries' lock file (through the node_modules link) counts too.
const earlier = new Date(Date.now() - 3_600_000);
const later = new Date(Date.now() + 3_600_000);
const caller = (root: string, extension = '.ts') => pathToFileURL(path.join(root, 'src', 'm', `caller${extension}`)).href;

describe('ownScript', () => {
  it('a compiled caller starts the compiled file beside it, as it is', () => {
    const root = project(earlier);
    expect(ownScript(caller(path.join(root, 'dist'), '.js'), './worker')).toEqual({ file: path.join(root, 'dist', 'src', 'm', 'worker.js'), execArgv: [] });
  });

  it('from the sources, the compiled copy when the build is newer than every source', () => {
    const root = project(earlier, later);
    expect(ownScript(caller(root), './worker')).toEqual({ file: path.join(root, 'dist', 'src', 'm', 'worker.js'), execArgv: [] });
  });

  it('from the sources, the TypeScript under tsx when a source is newer than the build, or there is none', () => {
    for (const root of [project(later, earlier), project(earlier)]) {
      const script = ownScript(caller(root), './worker');
      expect(script.file).toBe(path.join(root, 'src', 'm', 'worker.ts'));
      expect(script.execArgv).toHaveLength(2);
      expect(script.execArgv[0]).toBe('--import');
      expect(script.execArgv[1]).toMatch(/^file:.*\/node_modules\/tsx\//);
    }
  });
});
