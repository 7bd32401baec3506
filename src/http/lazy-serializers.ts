import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer'] & {};
type Serializer = (data: unknown) => string;

/**
 * Response serializers compiled on first use, once per distinct schema. Fastify's default
 * compiles every status of every route when the app gets ready (about 400 serializers here,
 * fewer than 100 distinct: every route shares the error body of its 4xx and 5xx answers),
 * which was a large part of the start-up time and of the memory a fresh server holds. Each
 * serializer is the one Fastify would have built, by the compiler Fastify itself depends on
 * (`@fastify/fast-json-stringify-compiler`, installed with Fastify); only when it is built
 * changes.
 */
export function lazySerializers(): SerializerFactory {
  const defaultFactory = SerializerSelector();
  return (externalSchemas, options) => {
    let compile: ReturnType<SerializerFactory> | undefined;
    const compiled = new Map<string, Serializer>();
    return (route) => {
      let serialize: Serializer | undefined;
      return (data: unknown) => {
        if (!serialize) {
          const key = JSON.stringify(route.schema);
          serialize = compiled.get(key);
          if (!serialize) {
            compile ??= defaultFactory(externalSchemas, options);
            serialize = compile(route) as Serializer;
            compiled.set(key, serialize);
          }
        }
        return serialize(data);
      };
    };
  };
}
