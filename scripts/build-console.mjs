/**
 * Builds the owner's console (web/, React + Vite) into dist/web, where the server serves it,
 * and writes a brotli and a gzip copy of each file beside it so nothing is compressed per
 * request. Incremental like the server's build: nothing is done while no file of web/ (nor the
 * installed libraries) is newer than the last build. `--force` builds anyway.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const webDir = path.join(root, 'web');
const out = path.join(root, 'dist', 'web');
const stamp = path.join(out, '.built');

/** Every file below `dir`. */
export function walk(dir, files = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, files);
    else files.push(full);
  }
  return files;
}

export async function buildConsole({ force = false } = {}) {
  if (!existsSync(webDir)) return;
  const inputs = [...walk(webDir), path.join(root, 'package.json'), path.join(root, 'node_modules', '.package-lock.json')].filter((file) => existsSync(file));
  const newest = Math.max(...inputs.map((file) => statSync(file).mtimeMs));
  if (!force && existsSync(stamp) && statSync(stamp).mtimeMs >= newest) return;

  let vite;
  try {
    vite = await import('vite');
  } catch {
    // An install without the development packages (npm install --omit=dev) cannot build it.
    console.warn('The console is not built: Vite is not installed (run npm install with the development packages). The API works without it.');
    return;
  }
  const started = Date.now();
  await vite.build({ configFile: path.join(webDir, 'vite.config.ts'), logLevel: 'warn' });
  for (const file of walk(out)) {
    if (!/\.(js|css|html|svg|json)$/.test(file)) continue;
    const body = readFileSync(file);
    writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
    writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
  }
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  if (process.stdout.isTTY) console.log(`built the console to dist/web in ${Date.now() - started} ms`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildConsole({ force: process.argv.includes('--force') });
}
