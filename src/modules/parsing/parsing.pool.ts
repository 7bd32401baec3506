/**
 * Parsing of untrusted input off the server's process. Every job (an uploaded file's text, a
 * remote OpenAPI document in YAML) runs in a worker process of its own, started for the job and
 * ended after it, with
 * - a JavaScript heap limit (V8's --max-old-space-size, EXTRACT_MAX_MEMORY_MB): past it V8 stops;
 * - a watch on the worker's resident memory (read from /proc every 20 ms, on Linux) for what the
 *   heap limit does not see: ArrayBuffers, such as a PDF stream inflating to gigabytes or a zip
 *   library's output. Past EXTRACT_MAX_MEMORY_MB the worker is killed;
 * - a wall-clock limit (EXTRACT_TIMEOUT_MS) that kills the worker;
 * - at most EXTRACT_CONCURRENCY jobs at once and four times as many waiting; more answer 429
 *   with Retry-After rather than starting workers without bound;
 * - fairness between owners, so that one account cannot keep every other account's uploads and
 *   discoveries answering 429: each job carries its owner, an owner runs at most half the slots
 *   (rounded up) and has at most two jobs waiting (more answer 429 saying their own files are
 *   queued), and a freed slot goes to the waiting job whose owner runs the fewest, the oldest
 *   first.
 * A job stopped by a limit answers 413 PAYLOAD_TOO_LARGE naming the limit, never 500; the server
 * only waits, so it keeps answering other requests meanwhile.
 * A process rather than a worker thread: a thread's ArrayBuffers come from the server's own
 * allocator, which kept hundreds of MiB after each stopped job (the server grew from 180 MiB to
 * 760 MiB in three hostile uploads), and a thread's memory cannot be told apart from the server's.
 * A process's memory is its own, measured exactly, and all returned when it exits. Starting one
 * costs about 0.3 s; uploads are rare. The worker gets no secret: its environment is nearly empty.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ExtractSettings } from '../../config.js';
import { AppError, type ErrorCode } from '../../http/errors.js';
import { childEnvironment, streamTail, type EnvironmentAllowList } from '../../lib/child-process.js';
import { ownScript } from '../../shared/project-root.js';
import type { ExtractCaps, UploadKind } from './parsing.extract.js';

export type ParseJob =
  | { kind: 'upload'; uploadKind: UploadKind; filename: string; data: Uint8Array }
  | { kind: 'yaml'; text: string; maxAliasCount: number };

/** What a worker answers: the job's value, an AppError's parts, or the message of anything else. */
export type WorkerReply =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: ErrorCode; message: string; details?: unknown } }
  | { ok: false; failure: string };

/** The first message to a worker: the caps, then the job. */
export interface WorkerRequest {
  caps: ExtractCaps;
  job: ParseJob;
}

const MiB = 1024 * 1024;
/** How often a worker's resident memory is read: cheap (one small /proc read), and soon enough. */
const WATCH_INTERVAL_MS = 20;
/** Jobs that may wait for a worker, per worker. */
const QUEUE_PER_WORKER = 4;
/** Jobs one owner may have waiting: enough to queue a few files, too few to fill the queue. */
const WAITING_PER_OWNER = 2;
const RETRY_AFTER_SECONDS = 5;

/** What a worker's environment keeps of the server's: nothing secret (keys, tokens, database addresses). */
const WORKER_ENV: EnvironmentAllowList = { names: ['PATH', 'TMPDIR', 'TEMP', 'TMP', 'HOME', 'LANG', 'TZ', 'SYSTEMROOT'] };

type Limit = 'time' | 'memory';

/** A process's resident memory in bytes, or undefined where /proc does not say (not Linux, or gone). */
export function residentBytes(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** A job waiting for a slot: whose it is, and how it is told to start (or that it never will). */
interface Waiter {
  ownerId: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** How many running slots one owner may hold: half of them, rounded up, at least one. */
export function ownerShare(concurrency: number): number {
  return Math.max(1, Math.ceil(concurrency / 2));
}

export function createParsingPool(settings: ExtractSettings) {
  const caps: ExtractCaps = { maxPages: settings.maxPages, maxInflatedBytes: settings.maxInflatedBytes, maxTextChars: settings.maxTextChars };
  const maxWaiting = settings.concurrency * QUEUE_PER_WORKER;
  const maxRunningPerOwner = ownerShare(settings.concurrency);
  const running = new Set<(limit: Limit) => void>();
  /** In arrival order. */
  const waiting: Waiter[] = [];
  /** Slots held, per owner; their sum is `busy`. */
  const runningByOwner = new Map<string, number>();
  let busy = 0;
  const env = childEnvironment(WORKER_ENV);

  function limitError(limit: Limit, label: string): AppError {
    return limit === 'time'
      ? new AppError(
          'PAYLOAD_TOO_LARGE',
          `${label} takes longer than ${settings.timeoutMs / 1000} s to read, the limit (EXTRACT_TIMEOUT_MS); it is refused. Split it into smaller files`,
        )
      : new AppError(
          'PAYLOAD_TOO_LARGE',
          `${label} needs more than ${settings.maxMemoryMb} MiB of memory to read, the limit (EXTRACT_MAX_MEMORY_MB); it is refused. Split it into smaller files`,
        );
  }

  function rateLimited(message: string): AppError {
    return new AppError('RATE_LIMITED', message, {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      details: { retryAfterSeconds: RETRY_AFTER_SECONDS },
    });
  }

  const runningOf = (ownerId: string) => runningByOwner.get(ownerId) ?? 0;

  function take(ownerId: string): void {
    busy += 1;
    runningByOwner.set(ownerId, runningOf(ownerId) + 1);
  }

  async function acquire(ownerId: string): Promise<void> {
    if (busy < settings.concurrency && runningOf(ownerId) < maxRunningPerOwner) {
      take(ownerId);
      return;
    }
    const own = waiting.filter((entry) => entry.ownerId === ownerId).length;
    if (own >= WAITING_PER_OWNER) {
      throw rateLimited(
        `Your own files are queued: ${runningOf(ownerId)} being read and ${own} waiting, the most one account may have (${maxRunningPerOwner} read at once and ${WAITING_PER_OWNER} waiting, from EXTRACT_CONCURRENCY); try again in ${RETRY_AFTER_SECONDS} s, once they are read`,
      );
    }
    if (waiting.length >= maxWaiting) {
      throw rateLimited(
        `The server is already reading ${settings.concurrency} files with ${waiting.length} more waiting (EXTRACT_CONCURRENCY); try again in ${RETRY_AFTER_SECONDS} s`,
      );
    }
    // The slot is taken by start() before the job is told to go.
    await new Promise<void>((resolve, reject) => waiting.push({ ownerId, resolve, reject }));
  }

  /** Hands free slots to waiting jobs: the owner running the fewest first, then the oldest job. */
  function start(): void {
    while (busy < settings.concurrency) {
      let chosen = -1;
      for (let i = 0; i < waiting.length; i++) {
        const count = runningOf(waiting[i]!.ownerId);
        if (count >= maxRunningPerOwner) continue;
        if (chosen === -1 || count < runningOf(waiting[chosen]!.ownerId)) chosen = i;
      }
      if (chosen === -1) return;
      const [next] = waiting.splice(chosen, 1);
      take(next!.ownerId);
      next!.resolve();
    }
  }

  function release(ownerId: string): void {
    busy -= 1;
    const left = runningOf(ownerId) - 1;
    if (left > 0) runningByOwner.set(ownerId, left);
    else runningByOwner.delete(ownerId);
    start();
  }

  function inWorker(job: ParseJob, label: string): Promise<unknown> {
    // Compiled, or from the sources under tsx (src/shared/project-root.ts).
    const script = ownScript(import.meta.url, './parsing.worker');
    return new Promise((resolve, reject) => {
      const child: ChildProcess = spawn(
        process.execPath,
        [
          `--max-old-space-size=${settings.maxMemoryMb}`,
          `--max-semi-space-size=${Math.min(16, Math.max(1, Math.floor(settings.maxMemoryMb / 32)))}`,
          ...script.execArgv,
          script.file,
        ],
        // The advanced serialization carries Buffers as they are; stderr is kept for the failure message.
        { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' },
      );
      const stderr = streamTail(child.stderr!, 2000);
      let settled = false;
      const finish = (settle: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(watch);
        running.delete(stop);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        settle();
      };
      const stop = (limit: Limit) => finish(() => reject(limitError(limit, label)));
      running.add(stop);
      const timer = setTimeout(() => stop('time'), settings.timeoutMs);
      const watch = setInterval(() => {
        const rss = child.pid === undefined ? undefined : residentBytes(child.pid);
        if (rss !== undefined && rss > settings.maxMemoryMb * MiB) stop('memory');
      }, WATCH_INTERVAL_MS);

      child.once('message', (reply: WorkerReply) =>
        finish(() => {
          if (reply.ok) resolve(reply.value);
          else if ('error' in reply) reject(new AppError(reply.error.code, reply.error.message, { details: reply.error.details }));
          else reject(new Error(`A parsing worker failed on ${label}: ${reply.failure}`));
        }),
      );
      child.once('error', (error) => finish(() => reject(new Error(`A parsing worker could not start for ${label}: ${error.message}`, { cause: error }))));
      child.once('exit', (code, signal) =>
        finish(() =>
          reject(
            // V8 aborts a process that reaches its heap limit.
            /heap limit|out of memory/i.test(stderr())
              ? limitError('memory', label)
              : new Error(`A parsing worker ended (${signal ?? `exit code ${code}`}) without answering for ${label}: ${stderr().slice(-500)}`),
          ),
        ),
      );
      child.send({ caps, job } satisfies WorkerRequest);
    });
  }

  async function run(ownerId: string, job: ParseJob, label: string): Promise<unknown> {
    await acquire(ownerId);
    try {
      return await inWorker(job, label);
    } finally {
      release(ownerId);
    }
  }

  return {
    /**
     * The text of an uploaded file (see parsing.extract.ts), read in a worker within the
     * EXTRACT_* limits, counted against `ownerId`'s share of the pool.
     */
    async extractUpload(ownerId: string, uploadKind: UploadKind, data: Buffer, filename: string): Promise<string> {
      return (await run(ownerId, { kind: 'upload', uploadKind, filename, data }, filename)) as string;
    },

    /**
     * A YAML document as plain data, or null when it is not YAML. The parser is slow (4 s and
     * 250 MB for 4 MiB) and builds a whole syntax tree first, so it never runs on the request
     * thread. Counted against `ownerId`'s share of the pool, like an upload.
     */
    async parseYaml(ownerId: string, text: string, label: string, maxAliasCount = 100): Promise<unknown> {
      return run(ownerId, { kind: 'yaml', text, maxAliasCount }, label);
    },

    /** Jobs running and waiting, for tests and the operator's eye. */
    load(): { running: number; waiting: number } {
      return { running: running.size, waiting: waiting.length };
    },

    /** Ends every running job and refuses the waiting ones (at shutdown). */
    close(): void {
      for (const entry of waiting.splice(0)) entry.reject(new AppError('RATE_LIMITED', 'The server is shutting down; try again shortly'));
      for (const stop of [...running]) stop('time');
    },
  };
}

export type ParsingPool = ReturnType<typeof createParsingPool>;
