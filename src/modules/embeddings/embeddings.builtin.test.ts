// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
/**
 * The built-in embedder's worker process, with the real model shipped in its package: started on
 * first need, stopped when idle, a crash survived, a memory cap enforced, hostile input bounded.
 * The model loads (about a second) in the first two tests only; the rest need no load or stop it early.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { createEmbeddingsService, EmbeddingsInputError, EmbeddingsUnavailable, type EmbeddingsLog } from './embeddings.service.js';
import { MAX_WAITING_BATCHES } from './embeddings.builtin.js';

const services: Array<{ close(): void }> = [];
afterAll(() => {
  for (const service of services) service.close();
});

function service(env: Record<string, string> = {}) {
  const config = loadConfig({ EMBEDDINGS_IDLE_MS: '400', ...env });
  const lines: string[] = [];
  const log: EmbeddingsLog = { warn: (m) => lines.push(`warn: ${m}`), info: (m) => lines.push(`info: ${m}`) };
  const embeddings = createEmbeddingsService({ settings: config.embeddings, log, retryAfterMs: 0 });
  services.push(embeddings);
  return { embeddings, lines };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('built-in embedder', () => {
  const shared = service();

  it('starts its worker on first need, answers unit vectors that find a paraphrase, and stops the worker when idle', async () => {
    const { embeddings } = shared;
    expect(embeddings.describe()).toEqual({ kind: 'builtin', model: 'universal-sentence-encoder-lite', dimensions: null, state: 'idle', lastError: null });
    expect(embeddings.workerPid()).toBeUndefined();

    const [question, ...notes] = await embeddings.embed(['who looks after my teeth', 'I prefer aisle seats on flights', 'My dentist is Dr. Patel']);
    expect(notes).toHaveLength(2);
    for (const v of [question!, ...notes]) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 4);
    }
    // Meaning, not words: the question shares no word with the dentist's note.
    expect(dot(question!, notes[1]!)).toBeGreaterThan(dot(question!, notes[0]!));

    const pid = embeddings.workerPid()!;
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(true);
    expect(embeddings.describe()).toMatchObject({ dimensions: 512, state: 'ready' });

    // EMBEDDINGS_IDLE_MS (400 ms here) later the worker is gone, and its memory with it.
    await until(() => embeddings.workerPid() === undefined && !alive(pid));
    expect(embeddings.describe()).toMatchObject({ dimensions: 512, state: 'idle', lastError: null });
  }, 60_000);

  it('survives a crash: a batch cut short by the worker dying is answered by a fresh worker, the crash logged once, the state unharmed', async () => {
    const { embeddings, lines } = shared;
    const first = embeddings.embed(['a note about the garden'], { urgent: true });
    await until(() => embeddings.workerPid() !== undefined);
    const pid = embeddings.workerPid()!;
    process.kill(pid, 'SIGKILL');
    const [vector] = await first;
    expect(vector).toHaveLength(512);
    expect(embeddings.workerPid()).not.toBe(pid);
    expect(embeddings.describe().state).toBe('ready');
    expect(lines).toEqual([expect.stringMatching(/^warn: The built-in embedder's worker ended unexpectedly \(SIGKILL\); a new worker starts for the next batch$/)]);

    // Killed between batches: the next batch starts another worker.
    const second = embeddings.workerPid()!;
    process.kill(second, 'SIGKILL');
    await until(() => !alive(second));
    const [again] = await embeddings.embed(['and one more']);
    expect(again).toHaveLength(512);
    expect(embeddings.workerPid()).not.toBe(second);
  }, 60_000);

  it('answers queries sent at once (one batch to the worker) each with its own vector, as when sent one at a time', async () => {
    const { embeddings } = shared;
    const texts = ['who looks after my teeth', 'My dentist is Dr. Patel', 'I prefer aisle seats on flights', 'where do I like to sit on a plane', 'a'];
    const alone: Float32Array[] = [];
    for (const text of texts) alone.push((await embeddings.embed([text], { urgent: true }))[0]!);
    const together = await Promise.all(texts.map((text) => embeddings.embed([text], { urgent: true }).then(([vector]) => vector!)));
    expect(together).toHaveLength(texts.length);
    together.forEach((vector, i) => {
      expect(dot(vector, alone[i]!)).toBeGreaterThan(0.9999);
      // and not its neighbour's
      expect(dot(vector, alone[(i + 1) % texts.length]!)).toBeLessThan(0.99);
    });
  }, 60_000);

  it('bounds hostile input: a huge text is cut to EMBEDDINGS_MAX_CHARS, too many texts are refused, the queue is bounded', async () => {
    const { embeddings } = shared;
    const started = Date.now();
    const [huge] = await embeddings.embed(['word '.repeat(2_000_000)]);
    expect(huge).toHaveLength(512);
    expect(Date.now() - started).toBeLessThan(15_000);
    await expect(embeddings.embed(Array.from({ length: 1025 }, () => 'x'))).rejects.toBeInstanceOf(EmbeddingsInputError);

    // More batches than the queue holds: the excess is refused at once, as unavailable for now,
    // and the embedder's state stays healthy.
    const { embeddings: busy } = service();
    const calls = Array.from({ length: MAX_WAITING_BATCHES + 3 }, (_, i) => busy.embed([`text ${i}`]).then(() => 'done', (e: unknown) => e));
    // The first batch leaves the queue at once for the worker, so the last two are the excess.
    const refused = (await Promise.race([Promise.all(calls.slice(MAX_WAITING_BATCHES + 1)), new Promise((r) => setTimeout(r, 200, 'slow'))])) as unknown[];
    expect(refused).not.toBe('slow');
    expect(refused.every((e) => e instanceof EmbeddingsUnavailable)).toBe(true);
    expect(busy.describe().state).not.toBe('failed');
    busy.close();
    await Promise.all(calls);
  }, 60_000);

  it('stops a worker past EMBEDDINGS_MAX_MEMORY_MB: state failed with a message naming the setting, once in the log', async () => {
    const { embeddings, lines } = service({ EMBEDDINGS_MAX_MEMORY_MB: '64' });
    const error = await embeddings.embed(['a']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingsUnavailable);
    expect(embeddings.describe()).toMatchObject({ state: 'failed', lastError: expect.stringMatching(/more than 64 MiB.*EMBEDDINGS_MAX_MEMORY_MB/) });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warn: Search by meaning is unavailable, words only until it recovers: .*EMBEDDINGS_MAX_MEMORY_MB/);
    expect(embeddings.workerPid()).toBeUndefined();
  });
});
