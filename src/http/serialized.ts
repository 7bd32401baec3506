import type { FastifyReply } from 'fastify';

/**
 * Bodies serialized once and sent as bytes afterwards, for answers that are served again as
 * they are: a constant (the discovery document) or an answer a service keeps while its data is
 * unchanged (see storage/derived-cache.ts). Serializing a few kilobytes of JSON, and then
 * measuring and encoding the string for the socket, is most of the work of such a request.
 *
 * The body is made by the route's own response serializer (`reply.serialize`), so it is byte for
 * byte what the route would have sent, shaped by the schema the route declares. It is kept by the
 * identity of the answer object it was made from: an answer that changed is a new object, so a
 * body can never outlive its answer, and the WeakMap drops it once nobody holds the answer.
 */
export interface SerializedBodies {
  /**
   * Sends the 200 answer for `answer`: the body built by `render(answer)` (the object the route
   * would return; callers type it with the route's response schema), serialized on first use and
   * reused for the same `answer` afterwards.
   */
  send<A extends object>(reply: FastifyReply, answer: A, render: (answer: A) => unknown): FastifyReply;
}

/** One per route: a body is what that route's serializer made of the answer. */
export function createSerializedBodies(): SerializedBodies {
  const bodies = new WeakMap<object, Buffer>();
  return {
    send(reply, answer, render) {
      let body = bodies.get(answer);
      if (!body) {
        body = Buffer.from(reply.serialize(render(answer)) as string, 'utf8');
        bodies.set(answer, body);
      }
      // The content type Fastify gives a serialized object; a Buffer is sent as it is.
      return reply.type('application/json; charset=utf-8').send(body);
    },
  };
}
