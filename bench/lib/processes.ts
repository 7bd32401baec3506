/**
 * The servers under measurement, each in a process of its own: Hearth, compiled and started the
 * way `npm start` starts it, and the minimal Fastify app it is compared with. Also what the bench
 * reads about them from outside: the time from spawn to the first answer, and resident memory.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MINIMAL_APP = path.join(PROJECT_ROOT, 'bench/minimal-server.mjs');
const FLOOR_WRITER = path.join(PROJECT_ROOT, 'bench/floor-write-server.mjs');

export interface RunningServer {
  baseUrl: string;
  pid: number;
  /** Milliseconds from spawn to the first 2xx answer of the readiness route. */
  startMs: number;
  stop(): Promise<void>;
}

/** Compiles src/ into dist/ once, as `npm start`'s prestart step does (incremental, so cheap when up to date). */
export function buildServer(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
}

/**
 * The node arguments of package.json's start script (`node <flags> dist/src/main.js`): read
 * rather than repeated here, so that the bench measures what the README tells people to run,
 * and follows it when it changes.
 */
function startArguments(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const [command, ...args] = (pkg.scripts.start ?? '').trim().split(/\s+/);
  if (command !== 'node') throw new Error(`package.json's start script is not a plain "node …" command: ${pkg.scripts.start}`);
  return args;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

export interface HearthStorage {
  dataDir: string;
  /** PostgreSQL's URL; undefined runs the embedded SQLite database in dataDir. */
  databaseUrl: string | undefined;
}

/**
 * A program the server runs under (a profiler: `valgrind --tool=callgrind …`), its node flags
 * extended, and how long it may take to answer, which such a program stretches many times over.
 */
export interface Launch {
  wrapper: string[];
  nodeFlags?: string[];
  readyWithinMs: number;
  env?: Record<string, string>;
}

/**
 * Hearth as production runs it: compiled JavaScript, NODE_ENV=production, warnings only in the
 * log. `settings` adds to (or overrides) its environment: the nodes of one cluster share a VAULT_KEY.
 * `launch` runs it under another program (see Launch).
 */
export async function startHearth(storage: HearthStorage, settings: Record<string, string> = {}, launch?: Launch): Promise<RunningServer> {
  const main = path.join(PROJECT_ROOT, 'dist/src/main.js');
  if (!existsSync(main)) throw new Error('dist/src/main.js is missing: buildServer() first');
  const port = await freePort();
  return spawnServer(startArguments(), `http://127.0.0.1:${port}`, '/api/v1/health', {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    REGISTRATION: 'open',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: storage.dataDir,
    // Set even when empty: a DATABASE_URL or PUBLIC_BASE_URL from the caller's shell or a .env
    // file (which never overrides what the environment already holds) must not leak in.
    DATABASE_URL: storage.databaseUrl ?? '',
    PUBLIC_BASE_URL: '',
    ...settings,
  }, launch);
}

/**
 * The setting of a server measured for words only: `EMBEDDINGS=off`. The built-in embedder is
 * the default, and on a seeded store (or after a write row) the indexer would embed the new
 * entries in the background, on the same cores as the rows being timed; the search latency bench
 * (search-latency.bench.ts) measures the server with it, and the write row while it indexes.
 */
export const WORDS_ONLY: Readonly<Record<string, string>> = { EMBEDDINGS: 'off' };

/**
 * The pids of a process's children (the `children` file of each of its tasks in /proc): the built-in embedder's and
 * the document extractor's workers, when running. Empty off Linux.
 */
export function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter((p) => p !== '').map(Number),
    );
  } catch {
    return [];
  }
}

export async function startMinimal(launch?: Launch): Promise<RunningServer> {
  const port = await freePort();
  return spawnServer([MINIMAL_APP], `http://127.0.0.1:${port}`, '/', { PORT: String(port) }, launch);
}

/**
 * The floor app of the write row (bench/floor-write-server.mjs): group-committed inserts into
 * the memory table of a database Hearth has migrated, for the user `ownerId`.
 */
export async function startFloorWriter(databaseUrl: string, ownerId: string): Promise<RunningServer> {
  const port = await freePort();
  // With the node flags Hearth starts with (its young generation's size above all), so that the
  // difference between the two is the servers' work, not V8's settings.
  const nodeFlags = startArguments().filter((arg) => arg.startsWith('--'));
  return spawnServer([...nodeFlags, FLOOR_WRITER], `http://127.0.0.1:${port}`, '/', { PORT: String(port), DATABASE_URL: databaseUrl, OWNER_ID: ownerId });
}

async function spawnServer(args: string[], baseUrl: string, readyPath: string, env: Record<string, string>, launch?: Launch): Promise<RunningServer> {
  const started = performance.now();
  // The server itself is the child (no npm or shell in between): its pid is the one whose memory
  // is read. A wrapper such as valgrind runs the server in its own process, under the same pid.
  const [command, ...commandArgs] = launch ? [...launch.wrapper, process.execPath, ...(launch.nodeFlags ?? [])] : [process.execPath];
  const child = spawn(command!, [...commandArgs, ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...launch?.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exited = false;
  void exit.then(() => (exited = true));
  // Polled every 5 ms: the first answer is known to within that, which is well under what is measured.
  const readyWithinMs = launch?.readyWithinMs ?? 60_000;
  for (const deadline = started + readyWithinMs; performance.now() < deadline; ) {
    if (exited) throw new Error(`${args.join(' ')} exited with ${await exit} before answering`);
    try {
      const res = await fetch(baseUrl + readyPath);
      await res.arrayBuffer();
      if (res.ok) return running(child, exit, baseUrl, performance.now() - started);
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  child.kill('SIGKILL');
  throw new Error(`${args.join(' ')} did not answer ${readyPath} within ${readyWithinMs / 1000} s`);
}

function running(child: ChildProcess, exit: Promise<number | null>, baseUrl: string, startMs: number): RunningServer {
  return {
    baseUrl,
    pid: child.pid!,
    startMs,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exit;
      clearTimeout(killer);
    },
  };
}

/** Resident memory of a process in MB (VmRSS of /proc/<pid>/status); undefined off Linux. */
export function rssMb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * CPU time a process has used so far, all its threads, user and system, in µs (utime and stime
 * of /proc/<pid>/stat, counted in Linux's fixed 100 ticks a second); undefined off Linux.
 */
export function cpuMicroseconds(pid: number): number | undefined {
  try {
    return cpuOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

function cpuOfStat(stat: string): number {
  const fields = statFields(stat);
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces) in parentheses:
 * [0] state, [1] parent pid, [11] utime, [12] stime, [13] cutime, [14] cstime, in ticks of 10 ms.
 */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * CPU time PostgreSQL's processes on this machine have used so far, in µs: each live process
 * whose command is `postgres` (backends, WAL writer, checkpointer, autovacuum…), plus, on the
 * postmaster (the one whose parent is not `postgres`), the time of its children that have ended,
 * which it reaps. So the difference of two readings counts a backend or an autovacuum worker that
 * started or ended between them. Undefined off Linux or when no PostgreSQL runs here.
 */
export function postgresCpuMicroseconds(): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const processes = new Map<number, string[]>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === 'postgres') processes.set(Number(entry), statFields(stat));
  }
  if (processes.size === 0) return undefined;
  let ticks = 0;
  for (const fields of processes.values()) {
    // utime and stime; cutime and cstime (ended children) on the postmaster only, whose parent is not one of them.
    ticks += Number(fields[11]) + Number(fields[12]);
    if (!processes.has(Number(fields[1]))) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return ticks * 10_000;
}

/** Samples each process's resident memory every 100 ms and keeps the peak. */
export function startPeakRss(pids: number[]): { peaks(): Array<number | undefined>; stop(): void } {
  const peaks: Array<number | undefined> = pids.map(() => undefined);
  const sample = () =>
    pids.forEach((pid, i) => {
      const mb = rssMb(pid);
      if (mb !== undefined) peaks[i] = Math.max(peaks[i] ?? 0, mb);
    });
  sample();
  const timer = setInterval(sample, 100);
  return { peaks: () => [...peaks], stop: () => clearInterval(timer) };
}
