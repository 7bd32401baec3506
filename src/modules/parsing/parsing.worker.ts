/**
 * A parsing worker process: runs the one job sent by the pool (parsing.pool.ts), answers, and
 * exits (or is killed by the pool). It holds nothing between jobs: each job gets a fresh process.
 */
import { parse as parseYaml } from 'yaml';
import { AppError } from '../../http/errors.js';
import { extractUploadText } from './parsing.extract.js';
import type { ExtractCaps } from './parsing.extract.js';
import type { ParseJob, WorkerReply, WorkerRequest } from './parsing.pool.js';

async function run(job: ParseJob, caps: ExtractCaps): Promise<unknown> {
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

/** Answers, then exits once the answer is written (the pool kills a worker that lingers). */
function reply(message: WorkerReply): void {
  const exit = () => process.disconnect();
  try {
    process.send!(message, undefined, undefined, exit);
  } catch (error) {
    // A value that cannot be serialized.
    process.send!({ ok: false, failure: (error as Error).message } satisfies WorkerReply, undefined, undefined, exit);
  }
}

process.once('message', ({ caps, job }: WorkerRequest) => {
  run(job, caps).then(
    (value) => reply({ ok: true, value }),
    (error: unknown) =>
      reply(
        error instanceof AppError
          ? { ok: false, error: { code: error.code, message: error.message, details: error.details } }
          : { ok: false, failure: (error as Error)?.message ?? String(error) },
      ),
  );
});
