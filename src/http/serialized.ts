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

/**
 * Lists whose items come back again and again in new combinations (search results: every new
 * query answers a new list of skills that earlier answers held too). Each item is serialized
 * once, by the route's serializer compiled for the item's schema, and kept by the item's
 * identity; a list's body is its items' JSON joined between `open` and `close`, which the
 * caller writes as the route's envelope serializes it (the tests compare the two). A list served
 * again as the same object (a cached answer) reuses its whole body, as `createSerializedBodies`
 * does.
 */
export interface SerializedLists {
  send(reply: FastifyReply, items: readonly object[], open: string, close: string): FastifyReply;
}

export function createSerializedLists(itemSchema: object): SerializedLists {
  const fragments = new WeakMap<object, string>();
  const bodies = new WeakMap<object, Buffer>();
  return {
    send(reply, items, open, close) {
      let body = bodies.get(items);
      if (!body) {
        // Compiled once per route (Fastify keeps it by schema), then a lookup.
        const serialize = reply.compileSerializationSchema(itemSchema as Parameters<FastifyReply['compileSerializationSchema']>[0]);
        let text = open;
        for (let i = 0; i < items.length; i++) {
          const item = items[i]!;
          let json = fragments.get(item);
          if (json === undefined) {
            json = flatten(serialize(item as Record<string, unknown>));
            fragments.set(item, json);
          }
          text += i === 0 ? json : `,${json}`;
        }
        body = Buffer.from(text + close, 'utf8');
        bodies.set(items, body);
      }
      return reply.type('application/json; charset=utf-8').send(body);
    },
  };
}

/**
 * The same text as one flat string. A serializer builds its output by appending piece after
 * piece, and V8 keeps such a string as a tree of its pieces (a node of some 32 bytes for each
 * append, besides the pieces). With 10,000 skills kept, the live heap after the search rows went
 * from 37 to 34 MB once flat (160,000 such nodes gone); a flat fragment takes about its length
 * in bytes. Done once per item, so the copy costs nothing that counts.
 */
function flatten(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
