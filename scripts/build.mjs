/**
 * Compiles the server to plain JavaScript in dist/ (dist/src, dist/daemon), so `npm start` runs
 * no TypeScript transform. Each file is transpiled on its own (no bundling): the layout stays
 * the source's, so files found next to their code (the parsing worker, the service catalogue)
 * are found the same way. Types are checked by `npm run typecheck`, not here.
 *
 * Incremental: when no source file is newer than the last build, nothing is done, so the
 * `prestart` step costs a directory walk. `--force` builds anyway.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist');
const stamp = path.join(out, '.built');
// The server and the daemon's build script (run by the server to make the downloads).
const SOURCE_DIRS = ['src', 'daemon'];

function walk(dir, files = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, files);
    else files.push(full);
  }
  return files;
}

const sources = SOURCE_DIRS.flatMap((dir) => walk(path.join(root, dir))).filter((file) => !/\.test\.ts$/.test(file));
const code = sources.filter((file) => file.endsWith('.ts'));
const assets = sources.filter((file) => file.endsWith('.json'));
const newest = Math.max(statSync(path.join(root, 'package.json')).mtimeMs, ...sources.map((file) => statSync(file).mtimeMs));

if (!process.argv.includes('--force') && existsSync(stamp) && statSync(stamp).mtimeMs >= newest) process.exit(0);

const started = Date.now();
// Loaded only when there is something to build: the up-to-date check stays a directory walk.
const { build } = await import('esbuild');
for (const dir of SOURCE_DIRS) rmSync(path.join(out, dir), { recursive: true, force: true });
await build({
  entryPoints: code,
  outdir: out,
  outbase: root,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
for (const file of assets) {
  const target = path.join(out, path.relative(root, file));
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(file, target);
}
writeFileSync(stamp, `${new Date().toISOString()}\n`);
if (process.stdout.isTTY) console.log(`compiled ${code.length} files to dist/ in ${Date.now() - started} ms`);
