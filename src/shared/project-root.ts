import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The project's folder (the one holding package.json), found from a module's own address. A
 * module runs from its source (`src/…`, under tsx) or compiled (`dist/src/…`), so a fixed number
 * of `..` would be right in one case only.
 */
export function projectRoot(moduleUrl: string): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
  return dir;
}

/** Whether a module runs compiled (dist/, `npm start`) rather than from TypeScript (tsx, the tests). */
export function runsCompiled(moduleUrl: string): boolean {
  return moduleUrl.endsWith('.js');
}

/** What scripts/build.mjs compiles into dist/ (scripts/build-current.mjs names the same). */
const BUILT_DIRS = ['src', 'daemon'];

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** Per project folder: whether its compiled copy is current, read once per process. */
const currentBuilds = new Map<string, boolean>();

/**
 * Whether dist/ holds the sources as they are now: the stamp each build writes (dist/.built) is
 * newer than every file of src/ and daemon/ (tests aside) and than the installed libraries, as
 * scripts/build-current.mjs checks it for the build and the command line.
 */
function compiledCopyIsCurrent(root: string): boolean {
  let current = currentBuilds.get(root);
  if (current === undefined) {
    const stamp = path.join(root, 'dist', '.built');
    const inputs = [path.join(root, 'package.json'), path.join(root, 'node_modules', '.package-lock.json')].filter((file) => existsSync(file));
    current =
      existsSync(stamp) &&
      statSync(stamp).mtimeMs >= Math.max(...inputs.map((file) => statSync(file).mtimeMs), ...BUILT_DIRS.map((dir) => newestSource(path.join(root, dir))));
    currentBuilds.set(root, current);
  }
  return current;
}

/** A script of our own to start as a child Node process: its file, and the flags before it. */
export interface OwnScript {
  file: string;
  execArgv: string[];
}

/**
 * How to start one of our own modules as a child process (a parsing worker, the encoder, a
 * scheduled backup), named relative to `moduleUrl` without its extension (`./parsing.worker`).
 * A compiled caller (`npm start`) starts the compiled file as it is. From the sources (tsx, the
 * tests) the compiled copy in dist/ is started when it is current, else the TypeScript under
 * tsx's loader (named by its full address, so that the working directory does not matter): tsx
 * resolves and compiles the module's imports at every start, about half a second of CPU for each
 * document parsed, while a stale copy must never run in place of edited code.
 */
export function ownScript(moduleUrl: string, relative: string): OwnScript {
  if (runsCompiled(moduleUrl)) return { file: fileURLToPath(new URL(`${relative}.js`, moduleUrl)), execArgv: [] };
  const source = fileURLToPath(new URL(`${relative}.ts`, moduleUrl));
  const root = projectRoot(moduleUrl);
  if (compiledCopyIsCurrent(root)) return { file: path.join(root, 'dist', path.relative(root, source)).replace(/\.ts$/, '.js'), execArgv: [] };
  return { file: source, execArgv: ['--import', pathToFileURL(createRequire(moduleUrl).resolve('tsx')).href] };
}
