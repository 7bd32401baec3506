import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * An upgrade request (the WebSocket plugin routes every one through Fastify) that is answered
 * over HTTP leaves a socket no HTTP parser reads any more: refused, not found, malformed, or sent
 * to a route that takes no WebSocket. It is closed once the answer is sent. An upgrade the AFP
 * route accepts hijacks its reply, which then never finishes, so its socket is left alone.
 * Called for every request: a header lookup when it is not an upgrade.
 */
export function closeUpgradeOnceAnswered(request: FastifyRequest, reply: FastifyReply): void {
  if (request.headers.upgrade !== undefined) reply.raw.once('finish', () => request.raw.socket.destroy());
}
