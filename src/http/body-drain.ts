import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * How much of an oversized body is read and thrown away before the 413 is answered. HTTP
 * clients that write the whole body before reading the answer (undici's fetch, Node's own,
 * many others) see the connection reset (EPIPE) when the server answers and closes while they
 * are still sending, and never read the 413. Up to this much, the rest of the body is read and
 * discarded first so that the 413 reaches them; beyond it, or after DRAIN_MAX_MS, the connection
 * is closed at once, which is cheaper than reading an attacker's gigabytes.
 */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 15_000;

/**
 * Reads and discards what is left of a request body. Resolves true when the body ended within
 * the bounds (the client then reads the answer), false when it did not: the bounds were passed,
 * the declared length is beyond them, or the connection failed. Never rejects.
 */
export function discardUnreadBody(raw: IncomingMessage, maxBytes = DRAIN_MAX_BYTES, maxMs = DRAIN_MAX_MS): Promise<boolean> {
  if (raw.complete || raw.readableEnded) return Promise.resolve(true);
  if (raw.destroyed) return Promise.resolve(false);
  const declared = Number(raw.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (drained: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('error', onFail);
      raw.off('close', onClose);
      if (!drained) raw.pause();
      resolve(drained);
    };
    const onData = (chunk: Buffer | string) => {
      seen += chunk.length;
      if (seen > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onFail = () => finish(false);
    const onClose = () => finish(raw.complete);
    const timer = setTimeout(() => finish(false), maxMs);
    raw.on('data', onData);
    raw.on('end', onEnd);
    raw.on('error', onFail);
    raw.on('close', onClose);
    raw.resume();
  });
}

function statusOf(error: unknown): number | undefined {
  const e = error as { status?: unknown; statusCode?: unknown } | null;
  const status = e?.statusCode ?? e?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * Before a 413 is answered (the error handler runs after onError hooks), the unread rest of
 * the body is discarded within the bounds above. The framework has already marked the answer
 * `Connection: close`, so the connection ends after the 413 either way.
 */
export function registerBodyDrain(app: FastifyInstance): void {
  app.addHook('onError', async (request, _reply, error) => {
    if (statusOf(error) === 413) await discardUnreadBody(request.raw);
  });
}
