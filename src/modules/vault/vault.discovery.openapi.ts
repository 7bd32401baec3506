/** API discovery, OpenAPI phase: recognising an OpenAPI (3.x) or Swagger (2.0) document and reading it. */
import { AppError } from '../../http/errors.js';
import type { OutboundResponse } from '../../http/outbound.js';
import type { ParsingPool } from '../parsing/parsing.pool.js';
import type { ApiAuthScheme, ApiOperation } from './vault.schemas.js';
import { clip, isObject, type Json, ok, str } from './vault.discovery.common.js';

export const MAX_OPERATIONS = 200;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** An OpenAPI or Swagger document and the address it was read from (its relative servers resolve against it). */
export interface OpenApiDocument {
  url: string;
  doc: Json;
}

/** What the chosen document says about the API. */
export interface OpenApiFindings {
  title: string | undefined;
  description: string | undefined;
  /** Its first server (Swagger: schemes, host and basePath), before the site check. */
  baseUrl: string | undefined;
  authSchemes: ApiAuthScheme[];
  operationCount: number;
  operations: ApiOperation[];
}

/**
 * Whether YAML text can be an OpenAPI or Swagger document: one has an `openapi:` or `swagger:` key
 * at the top level (a line of its own, not indented; the key may be quoted). Anything else (a
 * plain text page, a 404 page served as 200) costs no worker process.
 */
export function looksLikeOpenApiYaml(text: string): boolean {
  return /^(?:openapi|swagger|"openapi"|"swagger"|'openapi'|'swagger')[ \t]*:/m.test(text);
}

/**
 * The body as an OpenAPI or Swagger document, if it is one (JSON or YAML). JSON is parsed here:
 * V8's parser is native and linear, and a body is at most 4 MiB (about 30 ms). YAML is parsed in
 * a worker (`parsing`): the yaml package takes seconds and hundreds of MB for 4 MiB. A document
 * the worker gives up on (time, memory) counts as no document, like one over the size cap; a
 * worker pool too busy to take it answers 429.
 */
export async function parseOpenApi(response: OutboundResponse, parsing: Pick<ParsingPool, 'parseYaml'>, ownerId: string): Promise<Json | undefined> {
  const text = response.text().replace(/^\uFEFF/, '');
  if (/^\s*</.test(text)) return undefined;
  const json = /^\s*[{[]/.test(text);
  if (!json && !looksLikeOpenApiYaml(text)) return undefined;
  let doc: unknown;
  try {
    doc = json ? JSON.parse(text) : await parsing.parseYaml(ownerId, text, `The document at ${response.url}`, 100);
  } catch (error) {
    if (error instanceof AppError && error.code === 'RATE_LIMITED') throw error;
    return undefined;
  }
  if (!isObject(doc)) return undefined;
  const version = str(doc.openapi) ?? str(doc.swagger);
  if (!version || !/^[23]\./.test(version)) return undefined;
  return doc;
}

/**
 * The OpenAPI documents among `responses`, in their order. Each is parsed in turn, not at once:
 * YAML ones take a worker each, and one owner's discovery should not hold several.
 */
export async function collectOpenApi(
  responses: Array<OutboundResponse | undefined>,
  parsing: Pick<ParsingPool, 'parseYaml'>,
  ownerId: string,
): Promise<OpenApiDocument[]> {
  const found: OpenApiDocument[] = [];
  for (const response of responses) {
    const doc = ok(response) ? await parseOpenApi(response, parsing, ownerId) : undefined;
    if (doc && response) found.push({ url: response.url, doc });
  }
  return found;
}

/** The document's title, description, first server, security schemes and operations. */
export function readOpenApi({ url, doc }: OpenApiDocument): OpenApiFindings {
  const info = isObject(doc.info) ? doc.info : {};
  const { count, operations } = operationsOf(doc);
  return {
    title: str(info.title),
    description: str(info.description),
    baseUrl: serverBaseUrl(doc, url),
    authSchemes: authSchemesOf(doc),
    operationCount: count,
    operations,
  };
}

/** OpenAPI 3: the first server, its variables at their defaults. Swagger 2: schemes (https first), host and basePath. */
function serverBaseUrl(doc: Json, docUrl: string): string | undefined {
  try {
    if (str(doc.openapi)) {
      const server = Array.isArray(doc.servers) ? doc.servers.find(isObject) : undefined;
      let url = str(server?.url);
      if (!url) return undefined;
      const variables = isObject(server?.variables) ? server.variables : {};
      url = url.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const variable = variables[name];
        return isObject(variable) && typeof variable.default === 'string' ? variable.default : '';
      });
      const resolved = new URL(url, docUrl);
      if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') return undefined;
      return resolved.toString().replace(/\/+$/, '');
    }
    const doc2 = new URL(docUrl);
    const schemes = Array.isArray(doc.schemes) ? doc.schemes.filter((s): s is string => s === 'https' || s === 'http') : [];
    const scheme = schemes.includes('https') ? 'https' : (schemes[0] ?? doc2.protocol.replace(':', ''));
    const host = str(doc.host) ?? doc2.host;
    const basePath = str(doc.basePath) ?? '';
    return new URL(`${scheme}://${host}${basePath.startsWith('/') || basePath === '' ? basePath : `/${basePath}`}`).toString().replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/** The first 50 security schemes, in OpenAPI 3 terms (Swagger's `basic` is `http` with scheme `basic`). */
function authSchemesOf(doc: Json): ApiAuthScheme[] {
  const oas3 = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : undefined;
  const swagger2 = isObject(doc.securityDefinitions) ? doc.securityDefinitions : undefined;
  const out: ApiAuthScheme[] = [];
  for (const [name, raw] of Object.entries(oas3 ?? swagger2 ?? {}).slice(0, 50)) {
    if (!isObject(raw)) continue;
    let type = str(raw.type) ?? 'unknown';
    let scheme = str(raw.scheme)?.toLowerCase();
    if (type === 'basic') {
      type = 'http';
      scheme = 'basic';
    }
    const scheme_: ApiAuthScheme = { name: name.slice(0, 100), type };
    if (type === 'http' && scheme) scheme_.scheme = scheme;
    if (type === 'apiKey') {
      const where = str(raw.in);
      const paramName = str(raw.name);
      if (where) scheme_.in = where;
      if (paramName) scheme_.paramName = paramName;
    }
    out.push(scheme_);
  }
  return out;
}

/**
 * Every operation is counted, the first MAX_OPERATIONS kept. One without an operationId is named
 * from its method and path; a repeated id gets `_2`, `_3`, … so each names one operation.
 */
function operationsOf(doc: Json): { count: number; operations: ApiOperation[] } {
  const operations: ApiOperation[] = [];
  const seen = new Set<string>();
  let count = 0;
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      count += 1;
      if (operations.length >= MAX_OPERATIONS) continue;
      let operationId =
        str(op.operationId)?.slice(0, 200) ??
        [method, ...path.replace(/[{}]/g, '').split(/[^A-Za-z0-9]+/).filter(Boolean)].join('_').slice(0, 200);
      for (let n = 2; seen.has(operationId); n++) operationId = `${operationId.replace(/_\d+$/, '')}_${n}`;
      seen.add(operationId);
      const summary = str(op.summary) ?? str(op.description)?.split(/\r?\n/)[0];
      operations.push({ operationId, method: method.toUpperCase(), path: path.slice(0, 2000), summary: clip(summary, 300) });
    }
  }
  return { count, operations };
}
