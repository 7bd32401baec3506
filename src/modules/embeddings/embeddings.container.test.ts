/**
 * The embedder as the app builds it (on the engine the run selects): EMBEDDINGS=openai reaches an
 * endpoint on localhost, as a self-hosted model runs, while the general outbound client, which
 * every other caller uses, still refuses that origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { loadConfig } from '../../config.js';

let fake: FakeOpenAI;
let t: TestApp;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  const { embeddings } = loadConfig({
    EMBEDDINGS: 'openai',
    EMBEDDINGS_BASE_URL: `${fake.url}/v1`,
    EMBEDDINGS_MODEL: 'nomic-embed-text',
    EMBEDDINGS_API_KEY: fake.apiKey,
  });
  t = await createTestApp({ config: { embeddings, allowPrivateNetwork: false } });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('embeddings in the container', () => {
  it('reaches the configured endpoint on localhost; other callers may not', async () => {
    const vectors = await t.container.embeddings.embed(['my dentist is Dr. Patel']);
    expect(vectors).toHaveLength(1);
    expect(t.container.embeddings.describe()).toEqual({ kind: 'openai', model: 'nomic-embed-text', dimensions: 8, state: 'ready', lastError: null });
    await expect(t.container.outbound.request({ method: 'POST', url: `${fake.url}/v1/embeddings` })).rejects.toThrow(/Refusing to call 127\.0\.0\.1/);
  });
});
