/**
 * Parsing of untrusted input off the request thread. Every job (an uploaded file's text, a
 * remote OpenAPI document in YAML) runs in a worker thread of its own, made for the job and ended
 * after it, with
 * - a JavaScript heap limit (`resourceLimits`, EXTRACT_MAX_MEMORY_MB): past it V8 stops the worker;
 * - a watch on the process's resident memory while jobs run, for what the heap limit does not
 *   see (ArrayBuffers: a PDF stream inflating to gigabytes, a zip library's output): each running
 *   job may add EXTRACT_MAX_MEMORY_MB, and past that the running workers are ended;
 * - a wall-clock limit (EXTRACT_TIMEOUT_MS) that ends the worker;
 * - at most EXTRACT_CONCURRENCY jobs at once and four times as many waiting; more answer 429
 *   with Retry-After rather than starting workers without bound.
 * A job stopped by a limit answers 413 PAYLOAD_TOO_LARGE naming the limit, never 500; the server's
 * own thread only waits, so it keeps answering other requests meanwhile. A fresh worker per job
 * costs about 0.1 s and returns all of a job's memory when it ends; uploads are rare.
 */
import { Worker } from 'node:worker_threads';
import type { ExtractSettings } from '../../config.js';
import { AppError, type ErrorCode } from '../../http/errors.js';
import type { ExtractCaps, UploadKind } from '../knowledge/knowledge.extract.js';

export type ParseJob =
  | { kind: 'upload'; uploadKind: UploadKind; filename: string; data: Uint8Array }
  | { kind: 'yaml'; text: string; maxAliasCount: number };

/** What a worker answers: the job's value, an AppError's parts, or the message of anything else. */
export type WorkerReply =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: ErrorCode; message: string; details?: unknown } }
  | { ok: false; failure: string };

export interface WorkerData {
  entry: string;
  caps: ExtractCaps;
}

const MiB = 1024 * 1024;
/** How often the resident memory is read while jobs run: cheap (one system call), and soon enough. */
const WATCH_INTERVAL_MS = 20;
/** Jobs that may wait for a worker, per worker. */
const QUEUE_PER_WORKER = 4;
const RETRY_AFTER_SECONDS = 5;

// The worker is TypeScript under tsx (`npm start`, the tests) and JavaScript once compiled; the
// boot file registers the loader the TypeScript needs inside the worker thread.
const here = import.meta.url;
const WORKER_ENTRY = new URL(`./parsing.worker${here.endsWith('.ts') ? '.ts' : '.js'}`, here).href;
const WORKER_BOOT = new URL('./parsing.boot.mjs', here);

type Limit = 'time' | 'memory';

interface Running {
  /** The process's resident memory when this job's worker started. */
  startRss: number;
  stop(limit: Limit): void;
}

export function createParsingPool(settings: ExtractSettings) {
  const caps: ExtractCaps = { maxPages: settings.maxPages, maxInflatedBytes: settings.maxInflatedBytes, maxTextChars: settings.maxTextChars };
  const maxWaiting = settings.concurrency * QUEUE_PER_WORKER;
  const running = new Set<Running>();
  const waiting: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  let busy = 0;
  let watch: NodeJS.Timeout | undefined;

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

  /** Past the memory budget the running jobs are all stopped: which of them grew is not known. */
  function checkMemory(): void {
    let base = Infinity;
    for (const job of running) base = Math.min(base, job.startRss);
    if (process.memoryUsage.rss() - base > settings.maxMemoryMb * MiB * running.size) {
      for (const job of [...running]) job.stop('memory');
    }
  }

  async function acquire(): Promise<void> {
    if (busy < settings.concurrency) {
      busy += 1;
      return;
    }
    if (waiting.length >= maxWaiting) {
      throw new AppError(
        'RATE_LIMITED',
        `The server is already reading ${settings.concurrency} files with ${waiting.length} more waiting (EXTRACT_CONCURRENCY); try again in ${RETRY_AFTER_SECONDS} s`,
        { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) }, details: { retryAfterSeconds: RETRY_AFTER_SECONDS } },
      );
    }
    // The slot is handed over by release(), so `busy` stays counted.
    await new Promise<void>((resolve, reject) => waiting.push({ resolve, reject }));
  }

  function release(): void {
    const next = waiting.shift();
    if (next) next.resolve();
    else busy -= 1;
  }

  function inWorker(job: ParseJob, label: string, transfer: ArrayBuffer[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const workerData: WorkerData = { entry: WORKER_ENTRY, caps };
      const worker = new Worker(WORKER_BOOT, {
        workerData,
        // The server's own flags (an --inspect port, a loader) are not the worker's.
        execArgv: [],
        resourceLimits: {
          maxOldGenerationSizeMb: settings.maxMemoryMb,
          maxYoungGenerationSizeMb: Math.min(32, Math.max(4, Math.floor(settings.maxMemoryMb / 8))),
          stackSizeMb: 4,
        },
      });
      let settled = false;
      const finish = (settle: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        running.delete(job_);
        if (running.size === 0 && watch) {
          clearInterval(watch);
          watch = undefined;
        }
        void worker.terminate();
        settle();
      };
      const job_: Running = {
        startRss: process.memoryUsage.rss(),
        stop: (limit) => finish(() => reject(limitError(limit, label))),
      };
      const timer = setTimeout(() => job_.stop('time'), settings.timeoutMs);
      running.add(job_);
      if (!watch) {
        watch = setInterval(checkMemory, WATCH_INTERVAL_MS);
        watch.unref();
      }

      worker.once('message', (reply: WorkerReply) =>
        finish(() => {
          if (reply.ok) resolve(reply.value);
          else if ('error' in reply) reject(new AppError(reply.error.code, reply.error.message, { details: reply.error.details }));
          else reject(new Error(`A parsing worker failed on ${label}: ${reply.failure}`));
        }),
      );
      worker.once('error', (error: Error & { code?: string }) =>
        finish(() =>
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? limitError('memory', label)
              : new Error(`A parsing worker failed on ${label}: ${error.message}`, { cause: error }),
          ),
        ),
      );
      worker.once('exit', (code) => finish(() => reject(new Error(`A parsing worker ended (exit code ${code}) without answering for ${label}`))));
      worker.postMessage(job, transfer);
    });
  }

  async function run(job: ParseJob, label: string, transfer: ArrayBuffer[] = []): Promise<unknown> {
    await acquire();
    try {
      return await inWorker(job, label, transfer);
    } finally {
      release();
    }
  }

  return {
    /** The text of an uploaded file (see knowledge.extract.ts), read in a worker within the EXTRACT_* limits. */
    async extractUpload(uploadKind: UploadKind, data: Buffer, filename: string): Promise<string> {
      // A copy of its own to hand over: a small Buffer shares its memory with others.
      const copy = new Uint8Array(data);
      return (await run({ kind: 'upload', uploadKind, filename, data: copy }, filename, [copy.buffer])) as string;
    },

    /**
     * A YAML document as plain data, or null when it is not YAML. The parser is slow (4 s and
     * 250 MB for 4 MiB) and builds a whole syntax tree first, so it never runs on the request thread.
     */
    async parseYaml(text: string, label: string, maxAliasCount = 100): Promise<unknown> {
      return run({ kind: 'yaml', text, maxAliasCount }, label);
    },

    /** Jobs running and waiting, for tests and the operator's eye. */
    load(): { running: number; waiting: number } {
      return { running: running.size, waiting: waiting.length };
    },

    /** Ends every running job and refuses the waiting ones (at shutdown). */
    close(): void {
      for (const entry of waiting.splice(0)) entry.reject(new AppError('RATE_LIMITED', 'The server is shutting down; try again shortly'));
      for (const job of [...running]) job.stop('time');
    },
  };
}

export type ParsingPool = ReturnType<typeof createParsingPool>;
