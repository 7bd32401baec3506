// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
/**
 * The OpenAI-compatible embedder against a faithful local fake of `POST /v1/embeddings`,
 * called through the house's guarded outbound client with the fake's origin trusted, as the
 * container does for EMBEDDINGS_BASE_URL. No database is involved.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { createOutboundClient } from '../../http/outbound.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai.js';
import { createEmbeddingsService, EmbeddingsInputError, EmbeddingsUnavailable, MAX_BATCH_CHARS, planBatches, type EmbeddingsLog } from './embeddings.service.js';
import { RETRIES } from './embeddings.openai.js';

let fake: FakeOpenAI;
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await fake.close();
});
beforeEach(() => fake.reset());

/** The service as the container builds it for EMBEDDINGS=openai, with short delays. */
function service(env: Record<string, string> = {}, options: { retryAfterMs?: number } = {}) {
  const config = loadConfig({
    EMBEDDINGS: 'openai',
    EMBEDDINGS_BASE_URL: `${fake.url}/v1`,
    EMBEDDINGS_MODEL: 'text-embedding-3-small',
    EMBEDDINGS_API_KEY: fake.apiKey,
    EMBEDDINGS_TIMEOUT_MS: '1000',
    ...env,
  });
  const outbound = createOutboundClient({ allowPrivateNetwork: false, trustedOrigins: [config.embeddings.baseUrl!], maxResponseBytes: 1024 * 1024 });
  clients.push(outbound);
  const lines: Array<{ level: 'warn' | 'info'; message: string }> = [];
  const log: EmbeddingsLog = { warn: (message) => lines.push({ level: 'warn', message }), info: (message) => lines.push({ level: 'info', message }) };
  const embeddings = createEmbeddingsService({ settings: config.embeddings, outbound, log, backoffMs: 5, retryAfterMs: options.retryAfterMs ?? 0 });
  return { embeddings, lines };
}

const length = (v: Float32Array) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));

describe('OpenAI-compatible embedder', () => {
  it('answers one unit vector per text, in order, sending the model, the texts and the key as Bearer', async () => {
    const { embeddings } = service();
    expect(embeddings.describe()).toEqual({ kind: 'openai', model: 'text-embedding-3-small', dimensions: null, state: 'idle', lastError: null });
    const vectors = await embeddings.embed(['my dentist is Dr. Patel', 'aisle seats on flights', 'Dr. Patel is my dentist']);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(8);
      expect(length(v)).toBeCloseTo(1, 5);
    }
    // Same words, same direction: the order of the answers follows the order of the texts.
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
    expect(dot(vectors[0]!, vectors[2]!)).toBeCloseTo(1, 5);
    expect(dot(vectors[0]!, vectors[1]!)).toBeLessThan(0.99);
    const [request] = fake.requests;
    expect(request!.path).toBe('/v1/embeddings');
    expect(request!.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(request!.body).toEqual({ model: 'text-embedding-3-small', input: ['my dentist is Dr. Patel', 'aisle seats on flights', 'Dr. Patel is my dentist'], encoding_format: 'float' });
    expect(embeddings.describe()).toEqual({ kind: 'openai', model: 'text-embedding-3-small', dimensions: 8, state: 'ready', lastError: null });
  });

  it('sends texts in batches of EMBEDDINGS_BATCH_SIZE, each cut to EMBEDDINGS_MAX_CHARS, and refuses too many at once', async () => {
    const { embeddings } = service({ EMBEDDINGS_BATCH_SIZE: '4', EMBEDDINGS_MAX_CHARS: '100' });
    const texts = Array.from({ length: 10 }, (_, i) => `note ${i} ${'word '.repeat(i === 3 ? 10_000 : 1)}`);
    const vectors = await embeddings.embed(texts);
    expect(vectors).toHaveLength(10);
    expect(fake.requests.map((r) => r.body.input.length)).toEqual([4, 4, 2]);
    expect(Math.max(...fake.requests.flatMap((r) => r.body.input.map((t: string) => t.length)))).toBe(100);
    // Sent by length (the long one in the last batch), answered in the call's order.
    expect(fake.requests[2]!.body.input[1]).toHaveLength(100);
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
    for (const [i, text] of texts.entries()) expect(dot(vectors[i]!, (await embeddings.embed([text]))[0]!)).toBeCloseTo(1, 5);
    await expect(embeddings.embed(Array.from({ length: 1025 }, () => 'x'))).rejects.toBeInstanceOf(EmbeddingsInputError);
    expect(embeddings.describe().state).toBe('ready');
  });

  it('plans batches of at most the batch size and the character bound (the built-in one), shortest first when there are several', () => {
    const lengths = [...Array.from({ length: 10 }, () => 2_000), 5_000, 5];
    // short, the ten of 2,000, then the long one alone: it exceeds nothing by itself.
    expect(planBatches(lengths, 64, MAX_BATCH_CHARS)).toEqual([[11, 0, 1, 2], [3, 4, 5, 6], [7, 8, 9], [10]]);
    expect(planBatches(lengths, 2, MAX_BATCH_CHARS).map((batch) => batch.length)).toEqual([2, 2, 2, 2, 2, 2]);
    // One batch: kept in the call's order.
    expect(planBatches([30, 10, 20], 16, MAX_BATCH_CHARS)).toEqual([[0, 1, 2]]);
    expect(planBatches([30, 10, 20], 2, MAX_BATCH_CHARS)).toEqual([[1, 2], [0]]);
  });

  it('sends an endpoint long texts as EMBEDDINGS_BATCH_SIZE allows, without the built-in character bound', async () => {
    const { embeddings } = service({ EMBEDDINGS_BATCH_SIZE: '64', EMBEDDINGS_MAX_CHARS: '5000' });
    const texts = Array.from({ length: 10 }, (_, i) => `passage ${i} `.padEnd(2_000, 'x'));
    expect(await embeddings.embed(texts)).toHaveLength(10);
    expect(fake.requests.map((r) => r.body.input)).toEqual([texts]);
  });

  it('tries again after a 429 and succeeds, without a warning', async () => {
    const { embeddings, lines } = service();
    fake.failure = 'rate-limit';
    fake.failureCount = 2;
    const vectors = await embeddings.embed(['hello there']);
    expect(vectors).toHaveLength(1);
    expect(fake.requests).toHaveLength(3);
    expect(embeddings.describe().state).toBe('ready');
    expect(lines).toEqual([]);
  });

  it('fails after the retries on a lasting 500: state failed, lastError said, one warning; recovers once the endpoint does', async () => {
    const { embeddings, lines } = service();
    fake.failure = 'server-error';
    const error = await embeddings.embed(['hello']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingsUnavailable);
    expect(fake.requests).toHaveLength(RETRIES + 1);
    const described = embeddings.describe();
    expect(described.state).toBe('failed');
    expect(described.lastError).toMatch(/embeddings endpoint at 127\.0\.0\.1:\d+ answered 500: The server had an error.*after 4 tries/);
    await expect(embeddings.embed(['hello again'])).rejects.toBeInstanceOf(EmbeddingsUnavailable);
    // One warning for the change of state, not one per call.
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    fake.failure = undefined;
    await embeddings.embed(['hello again']);
    expect(embeddings.describe()).toMatchObject({ state: 'ready', lastError: null });
    expect(lines.map((l) => l.level)).toEqual(['warn', 'info']);
  });

  it('refuses at once while failed, for the retry delay, instead of waiting on the endpoint each time', async () => {
    const { embeddings } = service({}, { retryAfterMs: 60_000 });
    fake.failure = 'server-error';
    await expect(embeddings.embed(['a'])).rejects.toBeInstanceOf(EmbeddingsUnavailable);
    const sent = fake.requests.length;
    fake.failure = undefined;
    await expect(embeddings.embed(['b'])).rejects.toThrow(/answered 500/);
    expect(fake.requests).toHaveLength(sent);
  });

  it('an unreachable endpoint fails with a clear message', async () => {
    const { embeddings } = service({ EMBEDDINGS_BASE_URL: 'http://127.0.0.1:9/v1' });
    await expect(embeddings.embed(['a'])).rejects.toBeInstanceOf(EmbeddingsUnavailable);
    expect(embeddings.describe()).toMatchObject({ state: 'failed', lastError: expect.stringMatching(/127\.0\.0\.1:9 could not be reached \(.*ECONNREFUSED.*\) \(after 4 tries\)/) });
  });

  it('an endpoint that does not answer in time fails, naming EMBEDDINGS_TIMEOUT_MS', async () => {
    const { embeddings } = service({ EMBEDDINGS_TIMEOUT_MS: '1000' });
    fake.failure = 'hang';
    fake.failureCount = RETRIES + 1;
    await expect(embeddings.embed(['a'])).rejects.toBeInstanceOf(EmbeddingsUnavailable);
    expect(embeddings.describe().lastError).toMatch(/did not answer within 1000 ms \(EMBEDDINGS_TIMEOUT_MS\)/);
  }, 15_000);

  it.each([
    ['malformed', /answered something that is not JSON/],
    ['no-data', /answered without a `data` list of embeddings/],
    ['wrong-dimensions', /answered vectors of 7 dimensions where 8 are expected/],
  ] as const)('a body that is %s fails at once with a clear message', async (failure, message) => {
    const { embeddings } = service();
    fake.failure = failure;
    await expect(embeddings.embed(['first text', 'second text'])).rejects.toBeInstanceOf(EmbeddingsUnavailable);
    expect(fake.requests).toHaveLength(1);
    expect(embeddings.describe()).toMatchObject({ state: 'failed', lastError: expect.stringMatching(message) });
  });

  it('holds the vectors to EMBEDDINGS_DIMENSIONS, and to the length of earlier answers', async () => {
    const fixed = service({ EMBEDDINGS_DIMENSIONS: '16' });
    expect(fixed.embeddings.describe().dimensions).toBe(16);
    await expect(fixed.embeddings.embed(['a'])).rejects.toThrow(/8 dimensions where 16 are expected \(EMBEDDINGS_DIMENSIONS\)/);

    const learnt = service();
    await learnt.embeddings.embed(['a']);
    fake.embeddingDimensions = 12;
    await expect(learnt.embeddings.embed(['b'])).rejects.toThrow(/12 dimensions where 8 are expected \(its earlier answers\)/);
  });

  it('a wrong key fails with the endpoint\'s reason, the key itself never in a message or a log line', async () => {
    const key = 'sk-wrong-0123456789abcdef0123456789';
    const { embeddings, lines } = service({ EMBEDDINGS_API_KEY: key });
    const error = (await embeddings.embed(['a']).catch((e: unknown) => e)) as Error;
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    expect(error.message).toMatch(/answered 401: Incorrect API key provided/);
    const said = [error.message, embeddings.describe().lastError, ...lines.map((l) => l.message)].join('\n');
    expect(said).not.toContain(key);
    expect(said).not.toContain(key.slice(-12));
  });

  it('off: no vectors, state off, never a call', async () => {
    const config = loadConfig({ EMBEDDINGS: 'off' });
    const embeddings = createEmbeddingsService({ settings: config.embeddings });
    expect(embeddings.describe()).toEqual({ kind: 'off', model: 'none', dimensions: null, state: 'off', lastError: null });
    await expect(embeddings.embed(['a'])).rejects.toBeInstanceOf(EmbeddingsUnavailable);
  });
});
