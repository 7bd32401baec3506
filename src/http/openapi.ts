import type { SwaggerOptions } from '@fastify/swagger';
import { emptyBodyAsObject } from './schemas.js';

/**
 * The published contract's frame (info, tags, security schemes) and the two passes that make
 * the generated document lint clean and give generated clients named types:
 * - per route (`transform`): the wildcard pass-through is documented with a named `path`
 *   parameter, and routes whose body may be left out are noted;
 * - on the whole document (`transformObject`): every schema with a `title` moves to
 *   `components.schemas` under that title and is referenced by `$ref`.
 * Only the document changes: validation and serialization still use the route schemas as written.
 */

/** Every tag a route may carry, with what it groups. A route with another tag fails the lint test. */
export const OPENAPI_TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'discovery', description: 'What Hearth is and what a token may do: discovery document, quick start, scopes, capabilities, health' },
  { name: 'accounts', description: 'Register, sign in and out, and the signed-in account' },
  { name: 'users', description: "The administrator's view of the accounts on this server" },
  { name: 'tokens', description: "The owner's API tokens: create, list, change, regenerate, revoke" },
  { name: 'handshakes', description: 'How an agent without a token asks the owner for one' },
  { name: 'approvals', description: "Requests a token's policy held for the owner's decision, and running them once approved" },
  { name: 'audit', description: 'What was done with which token' },
  { name: 'webhooks', description: "Account events POSTed to the owner's addresses, signed as Standard Webhooks defines" },
  { name: 'gateway', description: 'One call that hands an agent everything its token may read' },
  { name: 'identity', description: "The owner's identity: public profile, professional and availability sections" },
  { name: 'preferences', description: "The owner's preferences" },
  { name: 'personas', description: 'Personas, with their documents and skills' },
  { name: 'memory', description: 'Long-term memory entries' },
  { name: 'knowledge', description: 'The knowledge base: documents and their attachments' },
  { name: 'skills', description: 'Skills: instructions, documents and attachments an agent can activate' },
  { name: 'portability', description: "The owner's whole account as one archive: export it, import it here or on another server" },
  { name: 'search', description: "One search over the owner's memory, knowledge passages and skills, by words and meaning; and how far indexing by meaning is" },
  { name: 'chat', description: 'Chat with the active persona, and its stored conversations' },
  { name: 'services', description: 'Services the owner can call with stored credentials: catalogue, methods, execute, proxy, pass-through' },
  { name: 'mail', description: "The owner's Google mail" },
  { name: 'storage', description: "The owner's Google Drive files" },
  { name: 'connectors', description: "The owner's own service definitions" },
  { name: 'oauth', description: 'Connecting and disconnecting accounts at OAuth providers' },
  { name: 'vault', description: 'Stored API tokens of other services, and discovering their APIs' },
  { name: 'marketplace', description: 'Published skills and personas: browse, publish, install, rate' },
  { name: 'billing', description: 'Plans, checkout and the payment provider webhook' },
  { name: 'afp', description: "The owner's PCs, reached through the AFP daemon" },
  { name: 'mcp', description: 'The Model Context Protocol endpoint: the API as tools for AI clients' },
  { name: 'authorization', description: 'The OAuth 2.1 authorization server MCP clients sign in with: metadata, registration, consent, tokens' },
  { name: 'console', description: "The owner's web console: its pages and files (it uses the API like any client)" },
];

/** The wildcard route's documented form: Fastify's `*` is not an OpenAPI parameter name. */
const WILDCARD_PARAM = 'path';

/** A route's hooks, which Fastify may hold as one function or a list. */
function hooksOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value ? [value] : [];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys whose values are data, not schemas: a `title` inside them names nothing. */
const DATA_KEYWORDS = new Set(['default', 'examples', 'example', 'const', 'enum']);

/** JSON with sorted keys, so that two equal schemas compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Moves every titled schema reachable from `root` into `components` and answers `root` with
 * those schemas replaced by `$ref`s. Two different schemas with one title are a programming
 * error: the document would name two shapes alike.
 */
export function hoistTitledSchemas(root: unknown, components: Json): unknown {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObject(node)) return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) out[key] = DATA_KEYWORDS.has(key) ? value : visit(value);
    const title = out.title;
    if (typeof title !== 'string' || !('type' in out || 'anyOf' in out || 'oneOf' in out || 'allOf' in out)) return out;
    if (!/^[A-Za-z0-9._-]+$/.test(title)) throw new Error(`The schema title "${title}" cannot name a component; use letters, digits, . _ -`);
    const existing = components[title];
    if (existing !== undefined && canonical(existing) !== canonical(out)) {
      throw new Error(`Two different schemas are both titled "${title}"; give one of them another title`);
    }
    components[title] = out;
    return { $ref: `#/components/schemas/${title}` };
  };
  return visit(root);
}

export function openApiOptions(options: { publicBaseUrl: string; version: string }): SwaggerOptions {
  // Filled by `transform` (once per route) and read by `transformObject` (once per document).
  const optionalBodies = new Set<string>();

  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hearth',
        version: options.version,
        description:
          "A personal API platform: one owner's identity, personas, skills, memory, knowledge base, vault, connected accounts and PCs, reached by AI agents with scoped bearer tokens.",
        // The project is not published under an open licence; the identifier says so in SPDX's words.
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'The operator of this Hearth server', url: options.publicBaseUrl },
      },
      servers: [{ url: options.publicBaseUrl }],
      tags: [...OPENAPI_TAGS],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'Authorization: Bearer <token>. What a route needs is in its `x-access` (public, token, scope, owner, master, admin) and, for scoped routes, `x-required-scopes` (any one of them suffices).',
          },
          queryToken: { type: 'apiKey', in: 'query', name: 'token', description: 'For fetch tools that cannot set headers' },
        },
      },
      security: [{ bearerAuth: [] }, { queryToken: [] }],
    },

    transform({ schema, url, route }) {
      if (hooksOf(route.preValidation).includes(emptyBodyAsObject) && typeof schema?.operationId === 'string') {
        optionalBodies.add(schema.operationId);
      }
      if (!url.endsWith('/*') || !schema) return { schema, url };
      const params = schema.params as Json | undefined;
      const properties = { ...(params?.properties as Json | undefined) };
      const wildcard = properties['*'] as Json | undefined;
      delete properties['*'];
      properties[WILDCARD_PARAM] = {
        ...wildcard,
        // Slashes separate the service's own path segments and are sent as they are.
        'x-allow-reserved': true,
        description: `${String(wildcard?.description ?? 'The rest of the address')}. May contain slashes, which are sent unencoded (\`repos/octocat/hello/issues\`); a %2F stays %2F.`,
      };
      const required = [...((params?.required as string[] | undefined) ?? []).filter((n) => n !== '*'), WILDCARD_PARAM];
      const querystring = {
        type: 'object',
        properties: {
          query: {
            type: 'object',
            additionalProperties: { type: 'string' },
            description:
              "The service's own query parameters, passed on as they are (`?per_page=5&page=2`; form style, exploded). ?token= is not passed on when it carried Hearth's token.",
          },
        },
      };
      return {
        schema: { ...schema, params: { ...params, properties, required }, querystring },
        url: `${url.slice(0, -1)}:${WILDCARD_PARAM}`,
      };
    },

    transformObject(documentObject) {
      const document = ('openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject) as Json;
      const paths = document.paths as Record<string, Record<string, Json>>;
      for (const item of Object.values(paths)) {
        for (const operation of Object.values(item)) {
          if (!isObject(operation)) continue;
          const body = operation.requestBody as Json | undefined;
          if (body && optionalBodies.has(String(operation.operationId))) body.required = false;
          // The free-form query of the pass-through is an object spread over the query string.
          for (const parameter of (operation.parameters as Json[] | undefined) ?? []) {
            if (parameter.in === 'query' && parameter.name === 'query' && (parameter.schema as Json | undefined)?.additionalProperties) {
              parameter.style = 'form';
              parameter.explode = true;
            }
          }
        }
      }
      const components = (document.components ??= {}) as Json;
      const schemas: Json = { ...(components.schemas as Json | undefined) };
      const hoisted = hoistTitledSchemas(paths, schemas) as Json;
      components.schemas = Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k]]));
      return { ...document, paths: hoisted } as never;
    },
  };
}
