import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
