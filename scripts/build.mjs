/**
 * Compiles the server to plain JavaScript in dist/ (dist/src, dist/daemon), so `npm start` runs
 * no TypeScript transform. Types are checked by `npm run typecheck`, not here. Two outputs:
 * - every file on its own, in the source's layout: what runs by path (the parsing worker, the
 *   daemon's build script) and the files found next to their code (the service catalogue);
 * - the server itself, `dist/src/main.js`, bundled with its libraries into one file (and a few
 *   chunks beside it for what loads on demand: the outbound HTTP client, the YAML parser, the
 *   PostgreSQL driver). Node resolves and reads about 900 module files otherwise, which was
 *   over a third of the start-up time. A module's `import.meta.url` in the bundle still names
 *   its own compiled file, so whatever it finds next to itself is found.
 *
 * Incremental: when no source file is newer than the last build, nothing is done, so the
 * `prestart` step costs a directory walk. `--force` builds anyway.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole } from './build-console.mjs';
import { buildStamp, serverBuildIsCurrent, serverSources, SOURCE_DIRS } from './build-current.mjs';

// The console first: it has its own up-to-date check, and the server's may end the script.
await buildConsole({ force: process.argv.includes('--force') });

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist');
const stamp = buildStamp(root);

const sources = serverSources(root);
const code = sources.filter((file) => file.endsWith('.ts'));
const assets = sources.filter((file) => file.endsWith('.json'));

if (!process.argv.includes('--force') && serverBuildIsCurrent(root, sources)) process.exit(0);

/**
 * Inside the bundle, `import.meta.url` would name the bundle; in each of the server's own
 * modules it is replaced by the URL of that module's file-by-file output (dist/src/…/x.js),
 * so `new URL('./catalogue.json', import.meta.url)` and the like find what they found before.
 */
function ownModuleUrls() {
  const srcDir = path.join(root, 'src');
  return {
    name: 'own-module-urls',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(srcDir + path.sep)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const compiled = `./${path.relative(srcDir, args.path).split(path.sep).join('/').replace(/\.ts$/, '.js')}`;
        return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(compiled)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

/**
 * @fastify/swagger requires the YAML library when it is registered, at start, for the one thing
 * it uses it for: `app.swagger({ yaml: true })` (and its static mode), which Hearth never asks
 * for. Bundled as it is, the YAML chunk was read, compiled and run by every server. Its `yaml`
 * is replaced by a stand-in that loads the library on a first call, from node_modules, as the
 * external packages above are. Hearth's own YAML parsing (skill front matter, the parsing
 * worker) imports the bundled copy, on demand, as before.
 */
function swaggerYamlOnDemand() {
  const swaggerDir = `${path.sep}node_modules${path.sep}@fastify${path.sep}swagger${path.sep}`;
  return {
    name: 'swagger-yaml-on-demand',
    setup(build) {
      build.onResolve({ filter: /^yaml$/ }, (args) => {
        if (args.namespace === 'swagger-yaml') return { path: 'yaml', external: true };
        return args.importer.includes(swaggerDir) ? { path: 'yaml', namespace: 'swagger-yaml' } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: 'swagger-yaml' }, () => ({
        contents: [
          'let yaml;',
          "const load = () => (yaml ??= require('yaml'));",
          'module.exports = { stringify: (...args) => load().stringify(...args), parse: (...args) => load().parse(...args) };',
        ].join('\n'),
        loader: 'js',
      }));
    },
  };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * A source map's `mappings` (base64 VLQ) with only what a stack trace reads: the segments of the
 * kept sources, and of those only the first of each run on one original line (a frame then shows
 * its original file and line, and the column where that line's code begins in the run). The kept
 * sources are renumbered in their order; `sources` is what the map's `sources` becomes.
 */
function keepMappings(mappings, sourceNames, keep) {
  const decode = (text) => {
    const values = [];
    for (let i = 0, value = 0, shift = 0; i < text.length; i++) {
      const digit = BASE64.indexOf(text[i]);
      value += (digit & 31) << shift;
      if (digit & 32) {
        shift += 5;
      } else {
        values.push(value & 1 ? -(value >>> 1) : value >>> 1);
        value = 0;
        shift = 0;
      }
    }
    return values;
  };
  const encode = (number) => {
    let value = number < 0 ? (-number << 1) | 1 : number << 1;
    let out = '';
    do {
      const digit = value & 31;
      value >>>= 5;
      out += BASE64[value ? digit | 32 : digit];
    } while (value);
    return out;
  };
  const renumbered = [];
  const sources = [];
  sourceNames.forEach((name, index) => {
    if (!keep[index]) return;
    renumbered[index] = sources.length;
    sources.push(name);
  });
  // Source index, line and column run on from segment to segment across lines; written again
  // relative to the last kept segment. The generated column restarts on every line.
  let source = 0, line = 0, column = 0;
  let keptSource = 0, keptLine = 0, keptColumn = 0;
  const text = mappings
    .split(';')
    .map((generatedLine) => {
      let generatedColumn = 0, keptGeneratedColumn = 0;
      // Whether the last segment written maps somewhere: code of a source not kept gets a
      // segment that maps nowhere, so that its frames show the bundle's position rather than
      // the own code before it.
      let mapped = false;
      const kept = [];
      for (const segment of generatedLine ? generatedLine.split(',') : []) {
        const [dColumn, dSource, dLine, dSourceColumn] = decode(segment);
        generatedColumn += dColumn;
        if (dSource === undefined) continue;
        source += dSource;
        line += dLine;
        column += dSourceColumn;
        if (!keep[source]) {
          if (mapped || !kept.length) {
            kept.push(encode(generatedColumn - keptGeneratedColumn));
            keptGeneratedColumn = generatedColumn;
            mapped = false;
          }
          continue;
        }
        const newSource = renumbered[source];
        if (mapped && newSource === keptSource && line === keptLine) continue;
        mapped = true;
        kept.push(encode(generatedColumn - keptGeneratedColumn) + encode(newSource - keptSource) + encode(line - keptLine) + encode(column - keptColumn));
        keptGeneratedColumn = generatedColumn;
        keptSource = newSource;
        keptLine = line;
        keptColumn = column;
      }
      return kept.join(',');
    })
    .join(';');
  return { mappings: text, sources };
}

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
const bundle = await build({
  // The command line's entry (src/cli.ts) too: it shares the server's chunks, and loads its
  // modules on demand, so `hearth reset-password` starts from compiled code as the server does.
  entryPoints: { main: path.join(root, 'src/main.ts'), cli: path.join(root, 'src/cli.ts') },
  outdir: path.join(out, 'src'),
  // Every output sits in dist/src, so the URLs written by ownModuleUrls hold for each of them.
  chunkNames: 'main.[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Native code, and optional native helpers of pg and ws that are required only when installed.
  // Then what Fastify requires only when asked and Hearth never asks for: its own Ajv compiler
  // (the app gives its own) and light-my-request (app.inject, used by the tests on the source).
  // Left out of the bundle, either would still load from node_modules if ever required.
  external: ['better-sqlite3', 'pg-native', 'bufferutil', 'utf-8-validate', '@fastify/ajv-compiler', 'light-my-request'],
  // The CommonJS libraries inside call require() for Node's built-in modules.
  banner: { js: "import { createRequire as __hearthCreateRequire } from 'node:module'; const require = __hearthCreateRequire(import.meta.url);" },
  plugins: [ownModuleUrls(), swaggerYamlOnDemand()],
  // Less source for V8 to read and keep; names stay (stack traces, Fastify's plugin names), and
  // the source map leads back to src/ (npm start runs with --enable-source-maps).
  minifyWhitespace: true,
  minifySyntax: true,
  // The libraries' licence notices go to main.js.LEGAL.txt: they carry non-ASCII names (below).
  legalComments: 'linked',
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
});
// The bundle's source map keeps only the server's own code (as the file-by-file maps did), and
// of it the lines (keepMappings): Node reads a map whole when it loads a script under
// --enable-source-maps and keeps it, and the libraries' mappings were three quarters of it, the
// columns within a line most of the rest. Frames in a library show the bundle's line and
// column, with the function's name.
for (const file of Object.keys(bundle.metafile.outputs).filter((name) => name.endsWith('.js.map'))) {
  const map = JSON.parse(readFileSync(path.resolve(file), 'utf8'));
  const srcDir = path.join(root, 'src') + path.sep;
  const own = map.sources.map((source) => path.resolve(path.dirname(path.resolve(file)), source).startsWith(srcDir));
  Object.assign(map, keepMappings(map.mappings, map.sources, own));
  map.names = [];
  writeFileSync(path.resolve(file), JSON.stringify(map));
}
// V8 keeps a script's source in memory, at one byte a character only when every character is
// ASCII: one other character doubles it (megabytes). esbuild escapes strings, not regular
// expression literals or template text, so those must spell such characters as \u escapes.
for (const file of Object.keys(bundle.metafile.outputs).filter((name) => name.endsWith('.js'))) {
  const text = readFileSync(path.resolve(file), 'utf8');
  const at = text.search(/[^\x00-\x7f]/);
  if (at >= 0) console.warn(`${file} holds a non-ASCII character, which doubles its size in memory: …${text.slice(Math.max(0, at - 40), at + 10)}…`);
}
writeFileSync(stamp, `${new Date().toISOString()}\n`);
if (process.stdout.isTTY) console.log(`compiled ${code.length} files to dist/ in ${Date.now() - started} ms`);
