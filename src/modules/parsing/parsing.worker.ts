/**
 * A parsing worker: runs one job sent by the pool (parsing.pool.ts), answers once, and is ended
 * by the pool. It holds nothing between jobs: each job gets a fresh worker.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parse as parseYaml } from 'yaml';
import { AppError } from '../../http/errors.js';
import { extractUploadText } from '../knowledge/knowledge.extract.js';
import type { ParseJob, WorkerData, WorkerReply } from './parsing.pool.js';

const { caps } = workerData as WorkerData;

async function run(job: ParseJob): Promise<unknown> {
  switch (job.kind) {
    case 'upload':
      return extractUploadText(job.uploadKind, Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength), job.filename, caps);
    case 'yaml':
      try {
        return parseYaml(job.text, { maxAliasCount: job.maxAliasCount });
      } catch {
        // Not YAML, too deeply nested for the stack, or an alias bomb: not a document.
        return null;
      }
  }
}

function reply(message: WorkerReply): void {
  try {
    parentPort!.postMessage(message);
  } catch (error) {
    // A value that cannot be copied to the main thread.
    parentPort!.postMessage({ ok: false, failure: (error as Error).message } satisfies WorkerReply);
  }
}

parentPort!.once('message', (job: ParseJob) => {
  run(job).then(
    (value) => reply({ ok: true, value }),
    (error: unknown) =>
      reply(
        error instanceof AppError
          ? { ok: false, error: { code: error.code, message: error.message, details: error.details } }
          : { ok: false, failure: (error as Error)?.message ?? String(error) },
      ),
  );
});
