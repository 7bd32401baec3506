/**
 * The daemon downloads, built on the first request for each platform (daemon/build.ts, in a
 * child process) and cached in the build folder; concurrent requests share one build.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT, type Artifact, type DownloadPlatform } from '../../../daemon/build.js';
import { AppError } from '../../http/errors.js';

const BUILD_SCRIPT = path.join(PROJECT_ROOT, 'daemon', 'build.ts');
/** daemon/build.ts's exit code when the npm registry could not be reached. */
const EXIT_REGISTRY = 3;

function runBuild(platform: DownloadPlatform, buildDir: string): Promise<Artifact> {
  return new Promise((resolve, reject) => {
    // tsx is resolved from the project, wherever the server was started from.
    const child = spawn(process.execPath, ['--import', 'tsx', BUILD_SCRIPT, '--platform', platform, '--out-dir', buildDir, '--json', '--prune'], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    // postject's LIEF prints a warning per ELF note; only the last lines can explain a failure.
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
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
      const reason = stderr
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

export function createDaemonDownloads(options: { buildDir: string }) {
  const builds = new Map<DownloadPlatform, Promise<Artifact>>();

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
      const build = runBuild(platform, path.resolve(options.buildDir));
      builds.set(platform, build);
      // A failed build is tried again on the next request.
      build.catch(() => builds.delete(platform));
      return build;
    },
  };
}

export type DaemonDownloads = ReturnType<typeof createDaemonDownloads>;
