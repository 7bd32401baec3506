/**
 * Server-sent events (text/event-stream) as the routes that stream write them: a long answer
 * (a chat reply, an import's progress) sends named events as it goes, and a failure after the
 * stream began arrives as an `error` event, since the status was sent with the first byte.
 */
import type { FastifyRequest } from 'fastify';
import { toAppError } from './errors.js';

/** One event: its name and a JSON payload. JSON text has no raw line breaks, so the payload is one data line. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The `error` event that ends a stream which failed after it began: the error's code and
 * message as the one error shape has them (with the request id when it is the server's fault,
 * which is logged as a 500 would be).
 */
export function sseError(request: FastifyRequest, error: unknown, what: string): string {
  const failure = toAppError(error);
  if (failure.status >= 500) request.log.error({ err: failure.cause ?? error }, `${what} failed`);
  return sseEvent('error', { error: failure.code, message: failure.message, ...(failure.status >= 500 ? { requestId: request.id } : {}) });
}
