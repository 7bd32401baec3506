/**
 * An OpenAI-compatible embeddings endpoint (OpenAI, Ollama, llama.cpp's server, vLLM):
 * `POST {EMBEDDINGS_BASE_URL}/embeddings` with `{ model, input: [texts], encoding_format: "float" }`,
 * answered by `{ object: "list", data: [{ object: "embedding", index, embedding: [numbers] }], model, usage }`.
 * The base URL ends in `/v1`, as OpenAI's own does and as LLM_BASE_URL does.
 * - A 429, a 5xx, a time-out or a lost connection is tried again, at most RETRIES times, after
 *   a growing delay (or the Retry-After the endpoint asks for, up to MAX_RETRY_AFTER_MS).
 * - Anything else is a failure at once, with a message saying what happened: another 4xx (a
 *   wrong key, an unknown model), a body that is not JSON or not the documented shape, a count
 *   of vectors unlike the count of texts, vectors of another length than the others, than
 *   EMBEDDINGS_DIMENSIONS or than earlier answers.
 * The API key goes only in the Authorization header; no message carries it.
 */
import { upstreamMessage } from '../../http/upstream-message.js';
import type { OutboundClient } from '../../http/outbound.js';

export interface OpenAiEmbedderSettings {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  /** The length every vector must have; 0 takes the first answer's and holds every later one to it. */
  dimensions: number;
  timeoutMs: number;
}

/** Tries after the first, for a 429, a 5xx or an unreachable endpoint. */
export const RETRIES = 3;
const MAX_RETRY_AFTER_MS = 10_000;

/** A failure of the endpoint, said plainly. */
export class EndpointFailure extends Error {}

/** Waits `ms`, or less if `retry-after` (seconds) asks for a different wait, bounded. */
function retryDelay(attempt: number, baseMs: number, retryAfter: string | undefined): number {
  const asked = Number(retryAfter);
  if (retryAfter !== undefined && Number.isFinite(asked) && asked >= 0) return Math.min(asked * 1000, MAX_RETRY_AFTER_MS);
  return baseMs * 2 ** attempt;
}

/** The vector scaled to length 1, so that a dot product is the cosine. */
function unit(values: readonly number[]): Float32Array {
  const out = Float32Array.from(values);
  let sum = 0;
  for (let i = 0; i < out.length; i++) sum += out[i]! * out[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

export function createOpenAiEmbedder(deps: {
  outbound: Pick<OutboundClient, 'request'>;
  settings: OpenAiEmbedderSettings;
  /** The first retry's delay; each next one doubles. */
  backoffMs?: number;
}) {
  const { outbound, settings } = deps;
  const backoffMs = deps.backoffMs ?? 500;
  const url = `${settings.baseUrl}/embeddings`;
  const host = new URL(url).host;
  let dimensions: number | undefined = settings.dimensions > 0 ? settings.dimensions : undefined;
  const fail = (what: string) => new EndpointFailure(`The embeddings endpoint at ${host} ${what}`);

  function headers(): Record<string, string> {
    const out: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (settings.apiKey) out.authorization = `Bearer ${settings.apiKey}`;
    return out;
  }

  /** The vectors of a 2xx body, in the order of the texts, or a failure saying what is wrong. */
  function read(body: unknown, count: number): Float32Array[] {
    const data = (body as { data?: unknown } | null)?.data;
    if (!body || typeof body !== 'object' || !Array.isArray(data)) throw fail('answered without a `data` list of embeddings');
    if (data.length !== count) throw fail(`answered ${data.length} embeddings for ${count} texts`);
    const out: Array<Float32Array | undefined> = new Array(count);
    for (const [position, item] of data.entries()) {
      const entry = item as { index?: unknown; embedding?: unknown } | null;
      const index = entry?.index === undefined ? position : entry.index;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || out[index]) {
        throw fail(`answered an embedding with index ${JSON.stringify(index)} for ${count} texts`);
      }
      const values = entry?.embedding;
      if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'number' && Number.isFinite(v))) {
        throw fail(`answered an embedding that is not a list of numbers (at index ${index})`);
      }
      if (dimensions !== undefined && values.length !== dimensions) {
        throw fail(
          `answered vectors of ${values.length} dimensions where ${dimensions} are expected (${settings.dimensions > 0 ? 'EMBEDDINGS_DIMENSIONS' : 'its earlier answers'}); vectors of different lengths cannot be compared`,
        );
      }
      dimensions = values.length;
      out[index] = unit(values);
    }
    return out as Float32Array[];
  }

  async function attempt(texts: string[]): Promise<{ vectors?: Float32Array[]; retry?: { message: string; after: string | undefined } }> {
    let response;
    try {
      response = await outbound.request({
        method: 'POST',
        url,
        headers: headers(),
        body: JSON.stringify({ model: settings.model, input: texts, encoding_format: 'float' }),
        timeoutMs: settings.timeoutMs,
        followRedirects: false,
      });
    } catch (error) {
      const reason = (error as Error).message;
      // The outbound client's refusals (an address rule) will not change; the rest might.
      if (/^Refusing to call/.test(reason)) throw fail(`cannot be called: ${reason}`);
      if (/answered more than/.test(reason)) throw fail('answered more than this server accepts (OUTBOUND_MAX_BYTES)');
      return { retry: { message: /in time/.test(reason) ? `did not answer within ${settings.timeoutMs} ms (EMBEDDINGS_TIMEOUT_MS)` : `could not be reached (${reason})`, after: undefined } };
    }
    if (response.status === 429 || response.status >= 500) {
      return { retry: { message: `answered ${response.status}: ${upstreamMessage(response.text(), settings.apiKey)}`, after: response.headers['retry-after'] } };
    }
    if (response.status < 200 || response.status >= 300) {
      throw fail(`answered ${response.status}: ${upstreamMessage(response.text(), settings.apiKey)}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(response.text());
    } catch {
      throw fail('answered something that is not JSON');
    }
    return { vectors: read(body, texts.length) };
  }

  return {
    model: settings.model,

    /** The vectors' length, once known (from EMBEDDINGS_DIMENSIONS or the first answer). */
    dimensions: (): number | undefined => dimensions,

    /** Unit vectors of `texts` (one request, tried again on 429, 5xx and lost connections); rejects with an EndpointFailure. */
    async embedBatch(texts: string[]): Promise<Float32Array[]> {
      for (let tries = 0; ; tries++) {
        const result = await attempt(texts);
        if (result.vectors) return result.vectors;
        const retry = result.retry!;
        if (tries >= RETRIES) throw fail(`${retry.message} (after ${RETRIES + 1} tries)`);
        await new Promise((resolve) => setTimeout(resolve, retryDelay(tries, backoffMs, retry.after)));
      }
    },
  };
}

export type OpenAiEmbedder = ReturnType<typeof createOpenAiEmbedder>;
