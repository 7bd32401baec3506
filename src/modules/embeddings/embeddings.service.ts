/**
 * Sentence vectors for search by meaning, from the embedder the settings choose (EMBEDDINGS):
 * the built-in encoder in its worker process (embeddings.builtin.ts), an OpenAI-compatible
 * endpoint (embeddings.openai.ts), or none.
 *
 * Search and the indexer must never fail because of it, so the service speaks in one error and
 * a status rather than in whatever went wrong underneath:
 * - `embed` answers unit-length Float32 vectors, one per text, in order; or rejects with an
 *   EmbeddingsUnavailable (off, failed, busy) or an EmbeddingsInputError (too many texts at once),
 *   nothing else. The caller falls back to words.
 * - a failure sets the state to `failed` with `lastError`, logged once as a warning when the state
 *   changes (not per call); for RETRY_AFTER_MS after it, calls are refused at once instead of
 *   each waiting for the same time-out; then the next call tries again, and a success is logged
 *   once and sets the state back.
 * - input is bounded: each text is cut to EMBEDDINGS_MAX_CHARS, a call takes at most
 *   MAX_TEXTS_PER_CALL texts, sent in batches of EMBEDDINGS_BATCH_SIZE texts (built in, also
 *   at most MAX_BATCH_CHARS characters; texts of like length together: `planBatches`); the
 *   answer is in the call's order.
 */
import type { EmbeddingsSettings } from '../../config.js';
import type { OutboundClient } from '../../http/outbound.js';
import { BuiltinFailure, createBuiltinEmbedder } from './embeddings.builtin.js';
import { createOpenAiEmbedder, EndpointFailure } from './embeddings.openai.js';
import type { Embedder } from './embeddings.schemas.js';

/** Texts one call may carry: the indexer's batches are far smaller; more is a caller's mistake. */
export const MAX_TEXTS_PER_CALL = 1024;
/** Characters one batch of the built-in worker carries at most (16 notes of 500): longer texts go fewer at a time. */
export const MAX_BATCH_CHARS = 8_000;
/**
 * The batches of a call, as lists of the texts' positions: at most `batchSize` texts and
 * `maxChars` characters each (at least one text). When the texts make more than one batch they
 * are taken shortest first: the built-in model pads each text of a batch to its longest, so a
 * short note batched with a long passage would cost as much as the passage, and the longest
 * passages grouped under the character bound keep every batch near the cost of 16 notes.
 */
export function planBatches(lengths: readonly number[], batchSize: number, maxChars: number): number[][] {
  const order = lengths.map((_, i) => i);
  const total = lengths.reduce((sum, n) => sum + n, 0);
  if (lengths.length > batchSize || total > maxChars) order.sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const batches: number[][] = [];
  for (let start = 0, end = 0; start < order.length; start = end) {
    let chars = lengths[order[start]!]!;
    for (end = start + 1; end < order.length && end - start < batchSize; end++) {
      chars += lengths[order[end]!]!;
      if (chars > maxChars) break;
    }
    batches.push(order.slice(start, end));
  }
  return batches;
}

/** After a failure, calls are refused at once for this long before the embedder is tried again. */
const RETRY_AFTER_MS = 30_000;

/** The embedder cannot answer now (off, failed, or too busy); search uses words only. */
export class EmbeddingsUnavailable extends Error {}
/** The call itself was out of bounds (more than MAX_TEXTS_PER_CALL texts); the state is unchanged. */
export class EmbeddingsInputError extends Error {}

/** What the service logs: a pino logger fits, and so does the console. */
export interface EmbeddingsLog {
  warn(message: string): void;
  info(message: string): void;
}

export interface EmbedderDescription extends Embedder {
  /** The last failure's message while `failed`, else null. */
  lastError: string | null;
}

/** An engine underneath: one batch at a time, vectors of unit length. */
interface Engine {
  model: string;
  dimensions(): number | undefined;
  phase(): 'idle' | 'loading' | 'ready';
  embedBatch(texts: string[], urgent: boolean): Promise<Float32Array[]>;
  close(): void;
  pid?: () => number | undefined;
}

/** `text` cut to `max` UTF-16 units, without leaving half a surrogate pair at the end. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

export function createEmbeddingsService(deps: {
  settings: EmbeddingsSettings;
  /** The outbound client the endpoint is called through (needed for `openai`). */
  outbound?: Pick<OutboundClient, 'request'> | undefined;
  log?: EmbeddingsLog;
  /** How long calls are refused after a failure (default 30 s). */
  retryAfterMs?: number;
  /** The endpoint's first retry delay (default 0.5 s, doubling). */
  backoffMs?: number;
}) {
  const { settings } = deps;
  let log: EmbeddingsLog = deps.log ?? { warn: (m) => console.warn(m), info: (m) => console.info(m) };
  const retryAfterMs = deps.retryAfterMs ?? RETRY_AFTER_MS;
  let failure: { message: string; at: number } | undefined;
  let succeeded = false;
  let closed = false;

  function engineFor(): Engine | undefined {
    if (settings.kind === 'off') return undefined;
    if (settings.kind === 'builtin') {
      const builtin = createBuiltinEmbedder(settings, { onCrash: (message) => log.warn(message) });
      return { ...builtin, embedBatch: (texts, urgent) => builtin.embedBatch(texts, urgent) };
    }
    if (!deps.outbound || !settings.baseUrl) throw new Error('The OpenAI-compatible embedder needs EMBEDDINGS_BASE_URL and an outbound client');
    const endpoint = createOpenAiEmbedder({
      outbound: deps.outbound,
      settings: { baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, dimensions: settings.dimensions, timeoutMs: settings.timeoutMs },
      ...(deps.backoffMs === undefined ? {} : { backoffMs: deps.backoffMs }),
    });
    return { ...endpoint, phase: () => (succeeded ? 'ready' : 'idle'), embedBatch: (texts) => endpoint.embedBatch(texts), close: () => {} };
  }
  const engine = engineFor();
  const kind = settings.kind;
  const model = engine?.model ?? 'none';

  function failed(error: unknown): EmbeddingsUnavailable {
    const message =
      error instanceof BuiltinFailure || error instanceof EndpointFailure ? error.message : `The ${kind} embedder failed: ${(error as Error)?.message ?? String(error)}`;
    if (!failure) log.warn(`Search by meaning is unavailable, words only until it recovers: ${message}`);
    failure = { message, at: Date.now() };
    return new EmbeddingsUnavailable(message);
  }

  function recovered(): void {
    if (failure) log.info(`Search by meaning is available again (${kind} embedder, ${model})`);
    failure = undefined;
    succeeded = true;
  }

  return {
    /**
     * Unit vectors of `texts`, one per text, in order. `urgent` (a search's query) goes before
     * the indexer's queued batches in the built-in worker. Rejects only with EmbeddingsUnavailable
     * or EmbeddingsInputError.
     */
    async embed(texts: readonly string[], options: { urgent?: boolean } = {}): Promise<Float32Array[]> {
      if (!engine) throw new EmbeddingsUnavailable('Embeddings are off (EMBEDDINGS=off)');
      if (closed) throw new EmbeddingsUnavailable('The embedder was stopped (the server is shutting down)');
      if (texts.length > MAX_TEXTS_PER_CALL) {
        throw new EmbeddingsInputError(`At most ${MAX_TEXTS_PER_CALL} texts can be embedded in one call, not ${texts.length}`);
      }
      if (texts.length === 0) return [];
      if (failure && Date.now() - failure.at < retryAfterMs) throw new EmbeddingsUnavailable(failure.message);
      const bounded = texts.map((text) => cut(String(text), settings.maxChars));
      const out = new Array<Float32Array>(bounded.length);
      try {
        for (const slots of planBatches(
          bounded.map((text) => text.length),
          settings.batchSize,
          kind === 'builtin' ? MAX_BATCH_CHARS : Number.POSITIVE_INFINITY,
        )) {
          const vectors = await engine.embedBatch(
            slots.map((i) => bounded[i]!),
            options.urgent === true,
          );
          if (vectors.length !== slots.length) throw new Error(`${vectors.length} vectors came back for ${slots.length} texts`);
          slots.forEach((slot, k) => (out[slot] = vectors[k]!));
        }
      } catch (error) {
        // A full queue is the caller's moment, and a shutdown the server's: neither is the embedder's health.
        if (closed || (error instanceof BuiltinFailure && /batches waiting/.test(error.message))) throw new EmbeddingsUnavailable(error instanceof Error ? error.message : String(error));
        throw failed(error);
      }
      recovered();
      return out;
    },

    /** Which embedder, which model, the vectors' length once known, and its state. */
    describe(): EmbedderDescription {
      const dimensions = engine?.dimensions() ?? null;
      const state: Embedder['state'] = !engine ? 'off' : failure ? 'failed' : engine.phase();
      return { kind, model, dimensions, state, lastError: failure?.message ?? null };
    },

    /** Hands the service the app's logger once there is one. */
    useLog(next: EmbeddingsLog): void {
      log = next;
    },

    /** The built-in worker's process id while one runs, for the operator's eye and the tests. */
    workerPid: (): number | undefined => engine?.pid?.(),

    /** Stops the built-in worker (at shutdown). */
    close(): void {
      closed = true;
      engine?.close();
    },
  };
}

export type EmbeddingsService = ReturnType<typeof createEmbeddingsService>;
