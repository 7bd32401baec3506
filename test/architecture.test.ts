// @engine-independent: reads the import graph of the source; no database
/**
 * The dependency rules of docs/architecture.md, checked on the real source: no import cycle
 * between files or between modules, and no arrow from a layer to one it may not import.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkRules,
  collapse,
  findCycles,
  findForwardReferences,
  formatCycle,
  formatViolation,
  readImportGraph,
  topLevelFunctions,
  type LayerRule,
} from './import-graph.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every .ts file under `dir`, tests left out. */
function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return listFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

const isTest = (file: string) => file.endsWith('.test.ts');
const under = (...prefixes: string[]) => (file: string) => prefixes.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));
/** The module a file of src/modules/ belongs to. */
const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1];

const LIB = 'src/lib/';
const SHARED = 'src/shared/';
const VERSION = 'src/version.ts';
const CONFIG = 'src/config.ts';
const HTTP = 'src/http/';
const STORAGE = 'src/storage/';
const MODULES = 'src/modules/';

/** `from` may import only what `allowed` matches (every rule skips tests, checked for cycles only). */
function onlyImports(name: string, from: (file: string) => boolean, allowed: (to: string, from: string) => boolean): LayerRule {
  return { name, appliesTo: (file) => from(file) && !isTest(file), forbids: (to, file) => !allowed(to, file) };
}

const RULES: LayerRule[] = [
  onlyImports('src/lib/ holds pure helpers: it imports nothing of the app', under(LIB), under(LIB)),
  onlyImports('src/shared/ is what the server and the daemon share: it imports neither side', under(SHARED), under(SHARED)),
  onlyImports('src/version.ts imports nothing', under(VERSION), () => false),
  onlyImports('src/config.ts sits under everything but src/lib/', under(CONFIG), under(LIB)),
  onlyImports('src/http/ imports only src/lib/, src/config.ts and src/version.ts', under(HTTP), under(HTTP, LIB, CONFIG, VERSION)),
  onlyImports('src/storage/ imports only src/lib/ and src/config.ts', under(STORAGE), under(STORAGE, LIB, CONFIG)),
  onlyImports(
    'a module imports the layers below it and other modules, never the composition root, the app or the daemon',
    under(MODULES),
    under(MODULES, LIB, SHARED, VERSION, CONFIG, HTTP, STORAGE),
  ),
  {
    name: "a module never imports another module's repository or routes: it calls that module's service",
    appliesTo: (file) => file.startsWith(MODULES) && !isTest(file),
    forbids: (to, from) => to.startsWith(MODULES) && moduleOf(to) !== moduleOf(from) && /\.(repo|routes)\.ts$/.test(to),
  },
  {
    name: "a module never imports another module's tables (*.tables.ts): it declares the columns it reads of them (readsOfTables), which the drift test checks",
    appliesTo: (file) => file.startsWith(MODULES) && !isTest(file),
    forbids: (to, from) => to.startsWith(MODULES) && moduleOf(to) !== moduleOf(from) && /\.tables\.ts$/.test(to),
  },
  {
    name: 'only src/storage/storage.ts runs the migrations; the engine names (Dialect) come from src/storage/dialect.ts',
    appliesTo: (file) => !isTest(file) && !file.startsWith('src/storage/migrations/') && file !== 'src/storage/storage.ts',
    forbids: (to) => to.startsWith('src/storage/migrations/'),
  },
  {
    name: 'the keyring sits under the vault and OAuth: it imports no other module',
    appliesTo: (file) => moduleOf(file) === 'keyring' && !isTest(file),
    forbids: (to) => to.startsWith(MODULES) && moduleOf(to) !== 'keyring',
  },
  {
    name: 'the gateway knows no module: each module hands it a context section (gateway.section.ts) with its own schema',
    appliesTo: (file) => moduleOf(file) === 'gateway' && !isTest(file),
    forbids: (to) => to.startsWith(MODULES) && moduleOf(to) !== 'gateway',
  },
  {
    name: 'the server never imports the daemon: it runs daemon/build.ts by path; what both need is in src/shared/',
    appliesTo: (file) => file.startsWith('src/') && !isTest(file),
    forbids: (to) => to.startsWith('daemon/'),
  },
  onlyImports('src/container.ts builds the modules; it never imports the app or main', under('src/container.ts'), (to) => !under('src/app.ts', 'src/main.ts')(to) && !to.startsWith('daemon/') && !to.startsWith('test/')),
  onlyImports('src/app.ts never imports main', under('src/app.ts'), (to) => to !== 'src/main.ts' && !to.startsWith('daemon/') && !to.startsWith('test/')),
  onlyImports('src/startup-errors.ts explains start-up failures from the settings and storage only', under('src/startup-errors.ts'), under(CONFIG, STORAGE, LIB)),
  onlyImports('src/main.ts imports nothing of the daemon or the tests', under('src/main.ts'), (to) => to.startsWith('src/')),
  onlyImports(
    'the daemon imports only its own files, src/shared/, src/lib/ and src/version.ts',
    under('daemon/'),
    under('daemon/', SHARED, LIB, VERSION),
  ),
  {
    name: 'only tests import test files',
    appliesTo: (file) => !isTest(file),
    forbids: (to) => isTest(to) || to.startsWith('test/'),
  },
];

describe('the import graph of src/ and daemon/', () => {
  const graph = readImportGraph(ROOT, ['src', 'daemon']);

  it('reads every file and resolves every relative import', () => {
    expect(graph.files.length).toBeGreaterThan(100);
    expect(graph.files).toContain('src/main.ts');
    expect(graph.unresolved.map((e) => `${e.from}:${e.line} '${e.specifier}'`)).toEqual([]);
  });

  it('has no import cycle between files', () => {
    const cycles = findCycles(graph).map((chain) => formatCycle(graph, chain));
    expect(cycles, `Import cycles (break each by moving the shared words into a file both sides import):\n  ${cycles.join('\n  ')}`).toEqual([]);
  });

  it('has no cycle between modules (src/modules/<name>)', () => {
    const modules = collapse(graph, (file) => (isTest(file) ? undefined : moduleOf(file)));
    const cycles = findCycles(modules).map((chain) => formatCycle(modules, chain));
    expect(
      cycles,
      `Modules that import each other (move what both need into a module under both, see docs/architecture.md):\n  ${cycles.join('\n  ')}`,
    ).toEqual([]);
  });

  it('names every file of a module <module>.<role>.ts', () => {
    const misnamed = graph.files.filter((file) => file.startsWith(MODULES) && !/^src\/modules\/([^/]+)\/\1(\.[a-z0-9-]+)+\.ts$/.test(file));
    expect(misnamed, `Files of src/modules/<name>/ are named <name>.<role>.ts (docs/architecture.md):\n  ${misnamed.join('\n  ')}`).toEqual([]);
  });

  it('follows the layer rules of docs/architecture.md', () => {
    const violations = checkRules(graph, RULES).map(formatViolation);
    expect(violations, `Imports the layer rules forbid:\n  ${violations.join('\n  ')}`).toEqual([]);
  });
});

describe('the composition root', () => {
  it('builds in dependency order: no service is handed one built after it', () => {
    // createContainer calls a builder per area in order, handing each what was built before it;
    // each builder, and the root itself, is checked on its own consts.
    const file = path.join(ROOT, 'src/container.ts');
    const functions = topLevelFunctions(file);
    expect(functions).toContain('createContainer');
    const found = functions.flatMap((name) =>
      findForwardReferences(file, name).map((f) => `src/container.ts:${f.line}: in ${name}, ${f.user} uses ${f.later}, which is built after it`),
    );
    expect(found, `Forward references (build the used service first, or let the later one subscribe):\n  ${found.join('\n  ')}`).toEqual([]);
  });

  it('publishes no domain event itself: the module whose records changed does', () => {
    const source = readFileSync(path.join(ROOT, 'src/container.ts'), 'utf8');
    const lines = source.split('\n').flatMap((line, i) => (/\.publish\(/.test(line) ? [`src/container.ts:${i + 1}: ${line.trim()}`] : []));
    expect(lines, `The container publishes events (let the module publish them, given the bus):\n  ${lines.join('\n  ')}`).toEqual([]);
  });
});

/**
 * Timers in route plugins that belong to one request (a stream's heartbeat), with why. Any other
 * timer runs beside the requests: it is a part of its module, added to the container's registry,
 * started when the server starts and stopped when it closes (docs/architecture.md).
 */
const REQUEST_SCOPED_TIMERS: Record<string, string> = {
  'src/modules/events/events.routes.ts': "the live stream's heartbeat, one per open stream, cleared when the stream ends",
};

describe('background work', () => {
  const files = listFiles(path.join(ROOT, 'src')).map((file) => path.relative(ROOT, file).split(path.sep).join('/'));

  it('is not started by route plugins: no setInterval in *.routes.ts but the listed request-scoped ones', () => {
    const found = files
      .filter((file) => file.endsWith('.routes.ts') && !(file in REQUEST_SCOPED_TIMERS))
      .flatMap((file) =>
        readFileSync(path.join(ROOT, file), 'utf8')
          .split('\n')
          .flatMap((line, i) => (/\bsetInterval\(/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(found, `Timers in route plugins (make them a part of the module, added to the container):\n  ${found.join('\n  ')}`).toEqual([]);
    for (const file of Object.keys(REQUEST_SCOPED_TIMERS)) expect(files, `${file} is listed but gone`).toContain(file);
  });

  it('is not started by buildApp: app.ts starts no part, timer or worker', () => {
    const source = readFileSync(path.join(ROOT, 'src/app.ts'), 'utf8');
    const lines = source
      .split('\n')
      .flatMap((line, i) => (/\.start\(|\bsetInterval\(|\bsetTimeout\(|addHook\('onReady'/.test(line) ? [`src/app.ts:${i + 1}: ${line.trim()}`] : []));
    expect(lines, `buildApp builds HTTP only; whoever serves the app calls container.start:\n  ${lines.join('\n  ')}`).toEqual([]);
  });
});

describe('the checker', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-graph-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  write('src/lib/a.ts', "import type { B } from '../storage/b.js';\nexport type A = B;\n");
  write('src/storage/b.ts', "export type { C } from './c.js';\nexport type B = string;\n");
  write('src/storage/c.ts', "export type C = number;\nexport const load = () => import('../lib/a.js');\n");
  write('src/modules/x/x.service.ts', "import { y } from '../y/y.repo.js';\nexport const x = y;\n");
  write('src/modules/y/y.repo.ts', "import type { X } from '../x/x.types.js';\nexport const y = 1;\n");
  write('src/modules/x/x.repo.ts', "import type { YTables } from '../y/y.tables.js';\nexport type XTables = YTables;\n");
  write('src/modules/y/y.tables.ts', 'export type YTables = { y: { id: string } };\n');
  write('src/modules/x/x.types.ts', "export type X = 1; // import './nothing.js' in a comment is no import\n");
  const graph = readImportGraph(dir, ['src']);

  it('counts type-only imports, re-exports and dynamic imports, and finds the cycle as a chain', () => {
    expect(findCycles(graph)).toEqual([['src/lib/a.ts', 'src/storage/b.ts', 'src/storage/c.ts', 'src/lib/a.ts']]);
  });

  it('finds a cycle between modules that no two files make', () => {
    expect(findCycles(graph).some((c) => c.some((f) => f.includes('modules')))).toBe(false);
    expect(findCycles(collapse(graph, moduleOf))).toEqual([['x', 'y', 'x']]);
  });

  it('finds a const that uses one declared after it, even inside a closure', () => {
    write(
      'root.ts',
      'export function createRoot() {\n  const a = { b: 1, call: () => b.x };\n  const b = { x: a };\n  const c = { a, b };\n  return c;\n}\n',
    );
    expect(findForwardReferences(path.join(dir, 'root.ts'), 'createRoot')).toEqual([{ user: 'a', later: 'b', line: 2 }]);
  });

  it('finds one through destructuring consts, and lists every top-level function to check', () => {
    write(
      'areas.ts',
      'function buildFirst(later: () => number) {\n  return { a: 1, b: later };\n}\nfunction buildSecond() {\n  return { c: 2 };\n}\nexport function createRoot() {\n  const { a, b } = buildFirst(() => c);\n  const { c } = buildSecond();\n  return { a, b, c };\n}\n',
    );
    expect(topLevelFunctions(path.join(dir, 'areas.ts'))).toEqual(['buildFirst', 'buildSecond', 'createRoot']);
    expect(findForwardReferences(path.join(dir, 'areas.ts'), 'createRoot')).toEqual([{ user: '{ a, b }', later: 'c', line: 8 }]);
  });

  it('reports a forbidden arrow with its file, line and rule', () => {
    const violations = checkRules(graph, RULES).map(formatViolation);
    expect(violations).toContain(
      "src/lib/a.ts:1 imports '../storage/b.js' (src/storage/b.ts)\n    rule: src/lib/ holds pure helpers: it imports nothing of the app",
    );
    expect(violations.some((v) => v.startsWith('src/modules/x/x.service.ts:1') && v.includes('repository'))).toBe(true);
    expect(violations.some((v) => v.startsWith('src/modules/x/x.repo.ts:1') && v.includes("another module's tables"))).toBe(true);
  });
});
