/**
 * The built-in embedder: the sentence encoder shipped with Hearth, run in one worker process
 * (embeddings.worker.ts) so that the server's own memory, start time and event loop are
 * unchanged. The worker is
 * - started on the first batch (its model loads in about half a second), and stopped after
 *   EMBEDDINGS_IDLE_MS without work, which gives all its memory back;
 * - capped in memory: V8's heap limit, and its resident memory read from /proc every 50 ms (the
 *   model's tensors live in WebAssembly memory, which the heap limit does not see); past
 *   EMBEDDINGS_MAX_MEMORY_MB it is killed;
 * - given EMBEDDINGS_TIMEOUT_MS to load and to answer each batch, else killed;
 * - fed one batch at a time from a bounded queue, where a search's query goes before the
 *   background indexer's batches;
 * - restarted on the next batch after it ends for any reason; a batch cut short by a crash (not by
 *   a limit, which the same batch would meet again) is tried once more on a fresh worker.
 * A process rather than a thread for the reasons parsing.pool.ts gives: its memory is its own,
 * measured exactly and all returned when it exits. It gets no secret: its environment is nearly empty.
 */
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { childEnvironment, streamTail, type EnvironmentAllowList } from '../../lib/child-process.js';
import { ownScript } from '../../shared/project-root.js';
import { residentBytes } from '../parsing/parsing.pool.js';

/** A batch for the worker: texts already cut and counted by the service. */
export interface WorkerRequest {
  id: number;
  texts: string[];
}

/** What the worker sends: ready (once, with the model's dimension), a batch's vectors, or a failure. */
export type WorkerMessage =
  | { kind: 'ready'; dimensions: number }
  | { kind: 'vectors'; id: number; vectors: Float32Array[] }
  /** id -1: the model could not be loaded. */
  | { kind: 'failed'; id: number; failure: string };

export interface BuiltinSettings {
  timeoutMs: number;
  maxMemoryMb: number;
  idleMs: number;
}

/** The model the built-in embedder runs, as vectors record it. */
export const BUILTIN_MODEL = 'universal-sentence-encoder-lite';

const MiB = 1024 * 1024;
const WATCH_INTERVAL_MS = 50;
/** Batches that may wait for the worker; more are refused at once rather than queued without bound. */
export const MAX_WAITING_BATCHES = 64;
/** Queries waiting together are sent as one batch of at most this many texts. */
const MAX_COALESCED_TEXTS = 32;

const WORKER_ENV: EnvironmentAllowList = { names: ['PATH', 'TMPDIR', 'TEMP', 'TMP', 'HOME', 'LANG', 'TZ', 'SYSTEMROOT'] };

/** Why a worker ended: a limit (the same batch would meet it again), a crash, or a stop asked for. */
type EndReason = 'memory' | 'time' | 'crash' | 'stopped';

/** A failure of the built-in embedder; `retry` is true when the batch may succeed on a fresh worker. */
export class BuiltinFailure extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

interface Job {
  texts: string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: Error) => void;
  retried: boolean;
}

interface Worker {
  child: ChildProcess;
  /** The model's dimension once loaded. */
  ready: Promise<number>;
  /** Sends one batch; settles with its vectors or the worker's end. */
  run(texts: string[]): Promise<Float32Array[]>;
  stop(reason: EndReason): void;
}

export function createBuiltinEmbedder(
  settings: BuiltinSettings,
  hooks: {
    /** A worker ended unexpectedly (not at a limit, not stopped): told once per crash, for the log. */
    onCrash?: (message: string) => void;
  } = {},
) {
  const env = childEnvironment(WORKER_ENV);
  const urgent: Job[] = [];
  const background: Job[] = [];
  let worker: Worker | undefined;
  let loaded = false;
  let busy = false;
  let idleTimer: NodeJS.Timeout | undefined;
  let closed = false;
  let dimensions: number | undefined;
  let nextId = 1;

  function endMessage(reason: EndReason, how: string, stderr: string): string {
    switch (reason) {
      case 'memory':
        return `The built-in embedder's worker used more than ${settings.maxMemoryMb} MiB (EMBEDDINGS_MAX_MEMORY_MB) and was stopped`;
      case 'time':
        return `The built-in embedder's worker did not answer within ${settings.timeoutMs} ms (EMBEDDINGS_TIMEOUT_MS) and was stopped`;
      case 'stopped':
        return 'The built-in embedder was stopped';
      case 'crash':
        return /heap limit|out of memory/i.test(stderr)
          ? `The built-in embedder's worker used more than ${settings.maxMemoryMb} MiB of heap (EMBEDDINGS_MAX_MEMORY_MB) and was stopped`
          : `The built-in embedder's worker ended unexpectedly (${how})${stderr.trim() ? `: ${stderr.trim().slice(-300)}` : ''}`;
    }
  }

  function startWorker(): Worker {
    // Compiled, or from the sources under tsx (src/shared/project-root.ts).
    const script = ownScript(import.meta.url, './embeddings.worker');
    const child = spawn(
      process.execPath,
      [
        `--max-old-space-size=${settings.maxMemoryMb}`,
        `--max-semi-space-size=${Math.min(16, Math.max(1, Math.floor(settings.maxMemoryMb / 32)))}`,
        ...script.execArgv,
        script.file,
      ],
      // The advanced serialization carries Float32Arrays as they are.
      { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' },
    );
    const stderr = streamTail(child.stderr!, 2000);
    let ended: EndReason | undefined;
    let pending: { id: number; resolve: (v: Float32Array[]) => void; reject: (e: Error) => void } | undefined;
    let timer: NodeJS.Timeout | undefined;
    let readyResolve!: (dimensions: number) => void;
    let readyReject!: (error: Error) => void;
    const ready = new Promise<number>((resolve, reject) => {
      readyResolve = resolve;
      readyReject = reject;
    });
    // A load that fails is reported through the batch that waits for it.
    void ignoreFailure(ready, 'a load that fails is reported through the batch that waits for it');

    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => stop('time'), settings.timeoutMs);
    };
    const watch = setInterval(() => {
      const rss = child.pid === undefined ? undefined : residentBytes(child.pid);
      if (rss !== undefined && rss > settings.maxMemoryMb * MiB) stop('memory');
    }, WATCH_INTERVAL_MS);
    watch.unref();

    function stop(reason: EndReason): void {
      ended ??= reason;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }

    child.on('message', (message: WorkerMessage) => {
      if (message.kind === 'ready') {
        clearTimeout(timer);
        loaded = true;
        readyResolve(message.dimensions);
      } else if (message.kind === 'failed' && message.id === -1) {
        // The worker leaves by itself; its failure is the load's, told through the batch waiting.
        ended ??= 'stopped';
        readyReject(new BuiltinFailure(`The built-in embedder's ${message.failure}`, false));
      } else if (pending && message.id === pending.id) {
        clearTimeout(timer);
        const settle = pending;
        pending = undefined;
        if (message.kind === 'vectors') settle.resolve(message.vectors);
        else settle.reject(new BuiltinFailure(`The built-in embedder failed on a batch: ${message.failure}`, false));
      }
    });
    const onEnd = (how: string) => {
      clearTimeout(timer);
      clearInterval(watch);
      const reason = ended ?? 'crash';
      const error = new BuiltinFailure(endMessage(reason, how, stderr()), reason === 'crash');
      if (reason === 'crash' && !closed) hooks.onCrash?.(`${error.message}; a new worker starts for the next batch`);
      readyReject(error);
      pending?.reject(error);
      pending = undefined;
      if (worker?.child === child) {
        worker = undefined;
        loaded = false;
      }
    };
    child.once('exit', (code, signal) => onEnd(signal ?? `exit code ${code}`));
    child.once('error', (error) => {
      ended ??= 'crash';
      onEnd(`it could not start: ${error.message}`);
    });
    arm(); // the load has the same time limit as a batch

    return {
      child,
      ready,
      stop,
      run(texts) {
        return new Promise((resolve, reject) => {
          const id = nextId++;
          pending = { id, resolve, reject };
          arm();
          child.send({ id, texts } satisfies WorkerRequest, (error) => {
            if (error && pending?.id === id) {
              pending = undefined;
              clearTimeout(timer);
              reject(new BuiltinFailure(`The built-in embedder's worker could not be reached: ${error.message}`, true));
            }
          });
        });
      },
    };
  }

  function scheduleIdleStop(): void {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      if (busy || !worker) return;
      // Detached before it is killed: a batch arriving while it exits starts a fresh worker.
      const idle = worker;
      worker = undefined;
      loaded = false;
      idle.stop('stopped');
    }, settings.idleMs);
    idleTimer.unref();
  }

  /**
   * The next run for the worker: the oldest query, with the queries waiting behind it up to
   * MAX_COALESCED_TEXTS texts (many searches at once cost one batch, which the model runs at
   * about twice the rate per text of single texts), else the oldest background batch.
   */
  function nextRun(): Job[] {
    if (urgent.length === 0) return background.length > 0 ? [background.shift()!] : [];
    const run = [urgent.shift()!];
    let texts = run[0]!.texts.length;
    while (urgent.length > 0 && texts + urgent[0]!.texts.length <= MAX_COALESCED_TEXTS) {
      const job = urgent.shift()!;
      texts += job.texts.length;
      run.push(job);
    }
    return run;
  }

  /** Runs the waiting batches one at a time, queries first. */
  async function drain(): Promise<void> {
    if (busy) return;
    busy = true;
    clearTimeout(idleTimer);
    try {
      for (let jobs = nextRun(); jobs.length > 0; jobs = nextRun()) {
        if (closed) {
          for (const job of jobs) job.reject(new BuiltinFailure('The built-in embedder was stopped', false));
          continue;
        }
        try {
          worker ??= startWorker();
          const current = worker;
          const dims = await current.ready;
          dimensions = dims;
          const vectors = await current.run(jobs.length === 1 ? jobs[0]!.texts : jobs.flatMap((job) => job.texts));
          let at = 0;
          for (const job of jobs) {
            job.resolve(vectors.slice(at, at + job.texts.length));
            at += job.texts.length;
          }
        } catch (error) {
          const failure = error instanceof BuiltinFailure ? error : new BuiltinFailure((error as Error).message, false);
          // A crash: each job once more, at the head of the line and in its order, on a fresh worker.
          const again = jobs.filter((job) => failure.retry && !job.retried && !closed);
          for (const job of jobs) if (!again.includes(job)) job.reject(failure);
          for (const job of again) job.retried = true;
          urgent.unshift(...again);
        }
      }
    } finally {
      busy = false;
      if (!closed) scheduleIdleStop();
    }
  }

  return {
    model: BUILTIN_MODEL,

    /** The model's dimension, once a worker has loaded it. */
    dimensions: (): number | undefined => dimensions,

    /** `idle` (no worker), `loading` (a worker loading the model) or `ready`. */
    phase(): 'idle' | 'loading' | 'ready' {
      if (!worker) return 'idle';
      return loaded ? 'ready' : 'loading';
    },

    /**
     * Unit vectors of `texts`, in order. `urgent` (a search's query) goes before queued
     * background batches. Rejects with a BuiltinFailure; more than MAX_WAITING_BATCHES waiting is one.
     */
    embedBatch(texts: string[], urgent_ = false): Promise<Float32Array[]> {
      if (closed) return Promise.reject(new BuiltinFailure('The built-in embedder was stopped', false));
      if (urgent.length + background.length >= MAX_WAITING_BATCHES) {
        return Promise.reject(new BuiltinFailure(`The built-in embedder already has ${MAX_WAITING_BATCHES} batches waiting; try again later`, false));
      }
      return new Promise((resolve, reject) => {
        (urgent_ ? urgent : background).push({ texts, resolve, reject, retried: false });
        void drain();
      });
    },

    /** The worker's process id while one runs, for the operator's eye and the tests. */
    pid: (): number | undefined => worker?.child.pid,

    /** Stops the worker and refuses what waits (at shutdown). */
    close(): void {
      closed = true;
      clearTimeout(idleTimer);
      for (const job of [...urgent.splice(0), ...background.splice(0)]) job.reject(new BuiltinFailure('The built-in embedder was stopped', false));
      worker?.stop('stopped');
    },
  };
}

export type BuiltinEmbedder = ReturnType<typeof createBuiltinEmbedder>;
