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
  /** The body `send` made for `answer`, if it made one yet (a prepared answer: see front-door.ts). */
  made(answer: object): Buffer | undefined;
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
    made: (answer) => bodies.get(answer),
  };
}

/**
 * Lists whose items come back again and again in new combinations (search results: every new
 * query answers a new list of skills that earlier answers held too). Each item is serialized
 * once, by the route's serializer compiled for the item's schema, and kept by the item's
 * identity as UTF-8 bytes; a list's body is its items' bytes copied between `open` and `close`,
 * which the caller writes as the route's envelope serializes it (the tests compare the two). A
 * list served again as the same object (a cached answer) reuses its whole body, as
 * `createSerializedBodies` does.
 *
 * Bytes rather than strings: joining some twenty JSON strings and encoding the joined string
 * (a rope of twenty pieces) for the socket cost more than ranking the search itself, while
 * copying twenty byte arrays into one is a few memory copies.
 */
export interface SerializedLists {
  /**
   * `keep`: the list is one its holder keeps (a cached answer), to be sent again: its body is
   * kept with it. A list sent once (false) gets a body carved from a shared slab, kept nowhere.
   */
  send(reply: FastifyReply, items: readonly object[], open: string, close: string, keep?: boolean): FastifyReply;
  /** The body `send` made for this very list, if it made one yet (a prepared answer: see front-door.ts). */
  made(items: readonly object[]): Buffer | undefined;
}

const COMMA = 0x2c;

/**
 * Bodies sent once are carved from slabs, as Node carves small Buffers from its pool: a body of
 * its own costs an allocation the garbage collector must track, per request. A slab is freed
 * once every body carved from it has been written and dropped; bodies kept with a cached answer
 * never come from it, so that none holds a whole slab for as long as its answer lives.
 */
const SLAB_BYTES = 256 * 1024;
let slab = Buffer.alloc(0);
let slabUsed = 0;

function bodyOnce(length: number): Buffer {
  if (length > SLAB_BYTES / 8) return Buffer.allocUnsafeSlow(length);
  if (slabUsed + length > slab.length) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabUsed = 0;
  }
  const body = slab.subarray(slabUsed, slabUsed + length);
  // Each body starts on an 8-byte boundary, as the pool's do.
  slabUsed += (length + 7) & ~7;
  return body;
}

export function createSerializedLists(itemSchema: object): SerializedLists {
  // Each item's JSON; the commas between items are written as the body is assembled.
  const fragments = new WeakMap<object, Buffer>();
  const bodies = new WeakMap<object, Buffer>();
  const envelopes = new Map<string, Buffer>();
  const encoded = (text: string): Buffer => {
    let bytes = envelopes.get(text);
    if (!bytes) {
      bytes = Buffer.from(text, 'utf8');
      // Callers pass constants: a handful at most.
      if (envelopes.size < 16) envelopes.set(text, bytes);
    }
    return bytes;
  };
  let serialize: ((item: Record<string, unknown>) => string) | undefined;
  // Reused for the fragments of one list (at most the route's largest limit).
  let pieces: Buffer[] = [];
  return {
    send(reply, items, open, close, keep = true) {
      let body = keep ? bodies.get(items) : undefined;
      if (!body) {
        // One per route: compiled by the first answer's reply, kept for the others.
        serialize ??= reply.compileSerializationSchema(itemSchema as Parameters<FastifyReply['compileSerializationSchema']>[0]) as (
          item: Record<string, unknown>,
        ) => string;
        const head = encoded(open);
        const tail = encoded(close);
        if (pieces.length < items.length) pieces = new Array<Buffer>(items.length);
        let length = head.length + tail.length + (items.length > 0 ? items.length - 1 : 0);
        for (let i = 0; i < items.length; i++) {
          const item = items[i]!;
          let json = fragments.get(item);
          if (json === undefined) {
            // A buffer of its own: a slice of Node's shared pool would keep the whole pool
            // block alive for as long as the item lives.
            const text = serialize(item as Record<string, unknown>);
            json = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
            json.write(text, 0, 'utf8');
            fragments.set(item, json);
          }
          pieces[i] = json;
          length += json.length;
        }
        // A kept body has its own memory, as the fragments do.
        body = keep ? Buffer.allocUnsafeSlow(length) : bodyOnce(length);
        // Whole pieces with Buffer's copy: it is a memmove once the sources are whole (a part
        // of a source is first made a view of its own), and faster than Uint8Array's set here.
        let at = head.copy(body, 0);
        for (let i = 0; i < items.length; i++) {
          if (i > 0) body[at++] = COMMA;
          at += pieces[i]!.copy(body, at);
        }
        tail.copy(body, at);
        // Not kept past this list: the items stay reachable only through their own holders.
        pieces.fill(undefined as unknown as Buffer, 0, items.length);
        if (keep) bodies.set(items, body);
      }
      return reply.type('application/json; charset=utf-8').send(body);
    },
    made: (items) => bodies.get(items),
  };
}
