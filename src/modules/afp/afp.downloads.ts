/**
 * The daemon downloads, built on the first request for each platform (daemon/build.ts, in a
 * child process) and cached in the build folder; concurrent requests share one build. The route
 * is public, so a failed build is not tried again for a while (BUILD_RETRY_MS: 503 with
 * Retry-After meanwhile), and the child gets only the environment a build needs, never the
 * server's secrets (VAULT_KEY, STRIPE_SECRET_KEY, GOOGLE_CLIENT_SECRET…).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import { childEnvironment, streamTail, type EnvironmentAllowList } from '../../lib/child-process.js';
import type { Artifact, DownloadPlatform } from '../../shared/afp.platforms.js';
import { projectRoot, runsCompiled } from '../../shared/project-root.js';

// The build script is run by its path, never imported: it carries esbuild and postject, which
// the server does not load. A compiled server (`npm start`) runs the compiled script with node
// alone; from source (tsx, the tests) the script is TypeScript and runs under tsx.
const PROJECT_ROOT = projectRoot(import.meta.url);
const COMPILED = runsCompiled(import.meta.url);
const BUILD_SCRIPT = COMPILED ? path.join(PROJECT_ROOT, 'dist', 'daemon', 'build.js') : path.join(PROJECT_ROOT, 'daemon', 'build.ts');
const LOADER_FLAGS = COMPILED ? [] : ['--import', 'tsx'];
/** daemon/build.ts's exit code when the npm registry could not be reached. */
const EXIT_REGISTRY = 3;
/** How long a platform whose build failed answers 503 before a build is tried again. */
export const BUILD_RETRY_MS = 5 * 60_000;

/**
 * What a build uses (node, tsx, npm pack/view and their network settings): npm's own variables
 * (`npm_config_*` for the registry, cache and proxy, `npm_execpath` to find npm) and node's
 * (`NODE_EXTRA_CA_CERTS`…; NODE_OPTIONS is always emptied). Nothing else of the server's
 * environment is passed.
 */
const BUILD_ENV: EnvironmentAllowList = {
  names: [
    'PATH', 'HOME', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'LC_ALL',
    'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'SSL_CERT_FILE', 'SSL_CERT_DIR',
    // Windows: where programs, profiles and the npm cache are.
    'SYSTEMROOT', 'SYSTEMDRIVE', 'WINDIR', 'COMSPEC', 'PATHEXT', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA', 'PROGRAMFILES',
  ],
  prefixes: ['NPM_', 'NODE_'],
};

/** The build child's environment (BUILD_ENV). */
export function buildEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return childEnvironment(BUILD_ENV, env);
}

function runBuild(platform: DownloadPlatform, buildDir: string, script: string): Promise<Artifact> {
  return new Promise((resolve, reject) => {
    // tsx is resolved from the project, wherever the server was started from.
    const child = spawn(process.execPath, [...LOADER_FLAGS, script, '--platform', platform, '--out-dir', buildDir, '--json', '--prune'], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: buildEnvironment(),
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    // postject's LIEF prints a warning per ELF note; only the last lines can explain a failure.
    const stderr = streamTail(child.stderr, 4000);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) {
        const line = stdout.trim().split('\n').pop() ?? '';
        try {
          return resolve(JSON.parse(line) as Artifact);
        } catch {
          return reject(new Error(`the daemon build printed no result: ${stdout.slice(0, 500)}`));
        }
      }
      const reason = stderr()
        .split('\n')
        .filter((l) => l.trim() && !l.startsWith("warning: Can't find string offset"))
        .slice(-5)
        .join(' ');
      if (code === EXIT_REGISTRY) {
        return reject(new AppError('UPSTREAM_ERROR', `The ${platform} daemon needs a node binary from the npm registry, which could not be fetched: ${reason}`));
      }
      reject(new Error(`the ${platform} daemon build failed (exit ${code}): ${reason}`));
    });
  });
}

export function createDaemonDownloads(options: {
  buildDir: string;
  /** The build script (tests use a stand-in). */
  buildScript?: string;
  retryMs?: number;
  now?: () => number;
}) {
  const builds = new Map<DownloadPlatform, Promise<Artifact>>();
  /** Per platform, when its last build failed: no build is tried again before `retryAt`. */
  const failures = new Map<DownloadPlatform, { retryAt: number }>();
  const retryMs = options.retryMs ?? BUILD_RETRY_MS;
  const now = options.now ?? Date.now;

  return {
    /** The artifact for `platform`, built once per process and daemon version; concurrent requests share the build. */
    async get(platform: DownloadPlatform): Promise<Artifact> {
      const current = builds.get(platform);
      if (current) {
        const artifact = await current;
        if (existsSync(artifact.file)) return artifact;
        // Someone cleared the build folder: build again.
        builds.delete(platform);
      }
      const failed = failures.get(platform);
      if (failed && now() < failed.retryAt) {
        const retryAfter = Math.max(1, Math.ceil((failed.retryAt - now()) / 1000));
        throw new AppError('UPSTREAM_ERROR', `The ${platform} daemon could not be built; the build is tried again in ${retryAfter} s`, {
          status: 503,
          headers: { 'Retry-After': String(retryAfter) },
          details: { retryAfterSeconds: retryAfter },
        });
      }
      const build = runBuild(platform, path.resolve(options.buildDir), options.buildScript ?? BUILD_SCRIPT);
      builds.set(platform, build);
      build.then(
        () => failures.delete(platform),
        () => {
          // A failed build is tried again by a request after retryMs, not by every request.
          builds.delete(platform);
          failures.set(platform, { retryAt: now() + retryMs });
        },
      );
      return build;
    },
  };
}

export type DaemonDownloads = ReturnType<typeof createDaemonDownloads>;
