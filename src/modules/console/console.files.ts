import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file of the built console, as it is sent: its bytes and, where built, compressed copies. */
export interface ConsoleFile {
  body: Buffer;
  type: string;
  /** Brotli and gzip copies written by the build, chosen by the request's Accept-Encoding. */
  br?: Buffer;
  gzip?: Buffer;
}

export interface ConsoleFiles {
  /** The console's page, or undefined when the console was not built. */
  index: ConsoleFile | undefined;
  /** A hashed asset by its file name (`index-3f9a….js`), or undefined. */
  asset(name: string): ConsoleFile | undefined;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/**
 * The project's root: the nearest folder above this module holding package.json. This module
 * runs from src/ (tests, `npm run dev`) and from dist/src/ (`npm start`); both find the same root.
 */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('The project folder (with package.json) was not found above the console module');
    dir = parent;
  }
  return dir;
}

/** Where the build (scripts/build.mjs, Vite) writes the console. */
export const CONSOLE_DIR = path.join(projectRoot(), 'dist', 'web');

function readFile(file: string): ConsoleFile {
  const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
  const entry: ConsoleFile = { body: readFileSync(file), type };
  if (existsSync(`${file}.br`)) entry.br = readFileSync(`${file}.br`);
  if (existsSync(`${file}.gz`)) entry.gzip = readFileSync(`${file}.gz`);
  return entry;
}

/**
 * The built console, read once on first use and kept in memory (a few hundred kilobytes):
 * nothing is looked up on disk per request, and no request path ever reaches the file system,
 * so no name can lead outside the folder.
 */
export function loadConsoleFiles(dir: string = CONSOLE_DIR): ConsoleFiles {
  const indexFile = path.join(dir, 'index.html');
  if (!existsSync(indexFile)) return { index: undefined, asset: () => undefined };
  const assets = new Map<string, ConsoleFile>();
  const assetsDir = path.join(dir, 'assets');
  if (existsSync(assetsDir)) {
    for (const name of readdirSync(assetsDir)) {
      if (name.endsWith('.br') || name.endsWith('.gz')) continue;
      assets.set(name, readFile(path.join(assetsDir, name)));
    }
  }
  return { index: readFile(indexFile), asset: (name) => assets.get(name) };
}

/** The copy of a file to send for a request's Accept-Encoding, with its Content-Encoding. */
export function encodedBody(file: ConsoleFile, acceptEncoding: string | undefined): { body: Buffer; encoding?: 'br' | 'gzip' } {
  const accepted = acceptEncoding ?? '';
  if (file.br && /\bbr\b/.test(accepted)) return { body: file.br, encoding: 'br' };
  if (file.gzip && /\bgzip\b/.test(accepted)) return { body: file.gzip, encoding: 'gzip' };
  return { body: file.body };
}
