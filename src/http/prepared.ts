import type { Static, TSchema } from '@sinclair/typebox';
import { compileResponseSerializer } from './lazy-serializers.js';

/**
 * Prepared answers (see front-door.ts) made from the route's own 200 schema, never written by
 * hand: a body spelt out in a template string drifts from the schema the route declares, and
 * the front door would then answer otherwise than the route. The serializer is the one Fastify
 * compiles for that schema (compileResponseSerializer), compiled once, on first use; the tests
 * compare the bytes with what Fastify itself sends for the route.
 */
export interface PreparedBody<S extends TSchema> {
  /** The route's 200 body for `answer`, as UTF-8 bytes. */
  bytes(answer: Static<S>): Buffer;
  /**
   * The same, made once per answer object and kept while it lives (a WeakMap): for an answer a
   * service keeps and hands out again as the same object while it holds.
   */
  kept(answer: Static<S> & object): Buffer;
}

export function preparedBody<S extends TSchema>(schema: S): PreparedBody<S> {
  let serialize: ((answer: unknown) => string) | undefined;
  const made = new WeakMap<object, Buffer>();
  const bytes = (answer: Static<S>): Buffer => {
    serialize ??= compileResponseSerializer(schema);
    return Buffer.from(serialize(answer), 'utf8');
  };
  return {
    bytes,
    kept(answer) {
      let body = made.get(answer);
      if (body === undefined) {
        body = bytes(answer);
        made.set(answer, body);
      }
      return body;
    },
  };
}

/**
 * The JSON around one list of a 200 body, as the route's serializer writes it: `open` up to the
 * list's `[`, `close` from its `]` on. For a body assembled from items serialized one by one
 * (see createSerializedLists). `around` is the rest of the body, the same for every answer; the
 * list is found where the serializer wrote it empty, which must be once.
 */
export function listEnvelope<S extends TSchema, K extends keyof Static<S> & string>(
  schema: S,
  key: K,
  around: Omit<Static<S>, K>,
): { open: string; close: string } {
  const json = compileResponseSerializer(schema)({ ...around, [key]: [] });
  const marker = `${JSON.stringify(key)}:[]`;
  const at = json.indexOf(marker);
  if (at < 0 || json.indexOf(marker, at + 1) >= 0) throw new Error(`The 200 schema does not write the list ${key} exactly once: ${json}`);
  const split = at + marker.length - 1;
  return { open: json.slice(0, split), close: json.slice(split) };
}
