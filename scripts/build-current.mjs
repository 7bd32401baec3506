/**
 * Whether dist/ holds the server as the sources are now: its stamp (dist/.built) is newer than
 * every source file of src/ and daemon/ and than the installed libraries. scripts/build.mjs
 * builds when it is not; the command line (bin/hearth.js) runs the compiled modules when it is,
 * and the sources under tsx otherwise, so it never runs stale code.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { walk } from './build-console.mjs';

/** The server and the daemon's build script (run by the server to make the downloads). */
export const SOURCE_DIRS = ['src', 'daemon'];

/** Every file the server's build reads from src/ and daemon/, tests left out. */
export function serverSources(root) {
  return SOURCE_DIRS.flatMap((dir) => walk(path.join(root, dir))).filter((file) => !/\.test\.ts$/.test(file));
}

/** The stamp written after each build of the server. */
export const buildStamp = (root) => path.join(root, 'dist', '.built');

/** Whether the last build of the server is newer than every source and the installed libraries. */
export function serverBuildIsCurrent(root, sources = serverSources(root)) {
  const stamp = buildStamp(root);
  if (!existsSync(stamp)) return false;
  // The bundle carries the libraries, so an install that changed them (npm rewrites
  // node_modules/.package-lock.json whenever it does) makes it stale too.
  const installed = [path.join(root, 'package.json'), path.join(root, 'node_modules', '.package-lock.json')].filter((file) => existsSync(file));
  const newest = Math.max(...installed.map((file) => statSync(file).mtimeMs), ...sources.map((file) => statSync(file).mtimeMs));
  return statSync(stamp).mtimeMs >= newest;
}
