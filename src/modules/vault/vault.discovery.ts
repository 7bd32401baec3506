/**
 * API discovery: what a website publishes for machines. Looks, in parallel and through the
 * guarded outbound client (so SSRF refusals come from it), for
 * - an OpenAPI (3.x) or Swagger (2.0) document, JSON or YAML: the page itself, a
 *   `<link rel="service-desc">` in the page (RFC 8631), the `api.url` of an AI plugin manifest,
 *   and the usual addresses (/openapi.json, /swagger.json, /.well-known/openapi.json,
 *   /api/openapi.json, /v3/api-docs, /openapi.yaml);
 * - `/llms.txt` (llmstxt.org);
 * - an AI plugin manifest (`/.well-known/ai-plugin.json`).
 * Every fetch is small (size caps) and time-bounded.
 */
import { AppError } from '../../http/errors.js';
import type { OutboundClient, OutboundResponse } from '../../http/outbound.js';
import { siteBindingRefusal } from '../../lib/same-site.js';
import type { ParsingPool } from '../parsing/parsing.pool.js';

export type ApiDocumentKind = 'openapi' | 'llms' | 'ai-plugin';

export interface ApiDocumentRef {
  kind: ApiDocumentKind;
  url: string;
}

export interface ApiAuthScheme {
  /** The scheme's name in the document (`bearerAuth`), or `ai-plugin` for a manifest's auth. */
  name: string;
  /** OpenAPI 3 terms: `http`, `apiKey`, `oauth2`, `openIdConnect`, `mutualTLS`. */
  type: string;
  /** For `http`: `bearer`, `basic`, … */
  scheme?: string;
  /** For `apiKey`: `header`, `query` or `cookie`. */
  in?: string;
  /** For `apiKey`: the header, query parameter or cookie name. */
  paramName?: string;
}

export interface ApiOperation {
  operationId: string;
  method: string;
  path: string;
  summary: string | null;
}

export interface DiscoveredApi {
  title: string | null;
  description: string | null;
  /**
   * Where the API's paths start: the document's first server, else the site's origin. The
   * token's secret goes there, so a server off the website's site is not kept (see baseUrlRejected).
   */
  baseUrl: string;
  /** The document's server when it was refused (another site, or cleartext for an https site). */
  baseUrlRejected?: string;
  documents: ApiDocumentRef[];
  authSchemes: ApiAuthScheme[];
  /** All operations in the document; `operations` holds at most MAX_OPERATIONS of them. */
  operationCount: number;
  operations: ApiOperation[];
}

export const MAX_OPERATIONS = 200;
/**
 * Discoveries one owner may have in flight at once: each makes up to nine fetches of up to
 * 4 MiB together (and a second round for linked documents); another answers 429 RATE_LIMITED.
 */
export const MAX_DISCOVERIES_PER_OWNER = 2;
const OPENAPI_PATHS = ['/openapi.json', '/swagger.json', '/.well-known/openapi.json', '/api/openapi.json', '/v3/api-docs', '/openapi.yaml'];
const LIMITS = { page: 512 * 1024, openapi: 4 * 1024 * 1024, llms: 256 * 1024, plugin: 64 * 1024 };
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

function clip(text: string | undefined, max: number): string | null {
  if (!text) return null;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function ok(response: OutboundResponse | undefined): response is OutboundResponse {
  return response !== undefined && response.status >= 200 && response.status < 300;
}

function looksLikeHtml(response: OutboundResponse): boolean {
  return /html/i.test(response.headers['content-type'] ?? '') || /^\s*</.test(response.body.subarray(0, 512).toString('utf8'));
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
async function parseOpenApi(response: OutboundResponse, parsing: Pick<ParsingPool, 'parseYaml'>, ownerId: string): Promise<Json | undefined> {
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

/** How much of a page is read for its head tags: the title, meta and link tags come first. */
const HEAD_SCAN_CHARS = 64 * 1024;
/** At most this many `service-desc` links of a page are fetched. */
const MAX_SERVICE_DESC_LINKS = 3;

interface HeadTag {
  name: string;
  attrs: Map<string, string>;
  /** A <title>'s text. */
  text?: string;
}

/**
 * Where a tag whose name starts at `from` ends: its first `>` outside a quoted attribute value,
 * or -1. A value whose quote never closes ends the tag at the next `>` (`lastQuote` says where
 * the page's last quote of each kind is, so an unclosed one is seen without scanning to the end).
 */
function tagEnd(page: string, from: number, lastQuote: { '"': number; "'": number }): number {
  let afterEquals = false;
  for (let i = from; i < page.length; i++) {
    const c = page[i]!;
    if (c === '>') return i;
    if ((c === '"' || c === "'") && afterEquals) {
      if (i >= lastQuote[c]) return page.indexOf('>', i);
      i = page.indexOf(c, i + 1);
      afterEquals = false;
    } else if (c === '=') afterEquals = true;
    else if (!/\s/.test(c)) afterEquals = false;
  }
  return -1;
}

/** A tag's attributes (names lower-cased; the first of a repeated name wins), from the tag's own text. */
function parseAttributes(text: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const m of text.matchAll(/([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?/g)) {
    const name = m[1]!.toLowerCase();
    if (!attrs.has(name)) attrs.set(name, m[2] ?? m[3] ?? m[4] ?? '');
  }
  return attrs;
}

/**
 * The tags of a page's head in one left-to-right scan (indexOf, never a backtracking regex over
 * the remote page): it stops at </head> or after the first 64 KB. Comments and the contents of
 * <script> and <style> are skipped; a <title> keeps its text.
 */
function headTags(html: string): HeadTag[] {
  const page = html.length > HEAD_SCAN_CHARS ? html.slice(0, HEAD_SCAN_CHARS) : html;
  const lower = page.toLowerCase();
  const lastQuote = { '"': page.lastIndexOf('"'), "'": page.lastIndexOf("'") };
  const tags: HeadTag[] = [];
  let at = 0;
  while (at < page.length) {
    const open = page.indexOf('<', at);
    if (open < 0) break;
    if (page.startsWith('<!--', open)) {
      const close = page.indexOf('-->', open + 4);
      if (close < 0) break;
      at = close + 3;
      continue;
    }
    const name = /^(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/.exec(page.slice(open + 1, open + 80));
    if (!name) {
      // <!doctype …> or <?xml …?>: skipped whole; a "<" in text: skipped alone.
      const bang = page[open + 1] === '!' || page[open + 1] === '?';
      const end = bang ? page.indexOf('>', open) : open;
      if (end < 0) break;
      at = end + 1;
      continue;
    }
    const end = tagEnd(page, open + 1, lastQuote);
    if (end < 0) break;
    at = end + 1;
    const tagName = name[2]!.toLowerCase();
    if (name[1]) {
      if (tagName === 'head') break;
      continue;
    }
    if (tagName === 'title' || tagName === 'script' || tagName === 'style') {
      const close = lower.indexOf(`</${tagName}`, at);
      if (close < 0) break;
      if (tagName === 'title') tags.push({ name: tagName, attrs: new Map(), text: page.slice(at, close) });
      at = close;
      continue;
    }
    tags.push({ name: tagName, attrs: parseAttributes(page.slice(open + 1 + name[0].length, end)) });
  }
  return tags;
}

/** `<link rel="service-desc" href="…">` targets in a page's head (at most 3), resolved against it. */
function serviceDescLinks(html: string, base: string): string[] {
  const out: string[] = [];
  for (const tag of headTags(html)) {
    if (out.length >= MAX_SERVICE_DESC_LINKS) break;
    if (tag.name !== 'link') continue;
    const rel = (tag.attrs.get('rel') ?? '').toLowerCase().split(/\s+/);
    const href = tag.attrs.get('href');
    if (!href || !rel.includes('service-desc')) continue;
    try {
      const url = new URL(href.replace(/&amp;/g, '&'), base);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !out.includes(url.toString())) out.push(url.toString());
    } catch {
      // not an address
    }
  }
  return out;
}

function htmlMeta(html: string): { title?: string; description?: string } {
  let title: string | undefined;
  let description: string | undefined;
  for (const tag of headTags(html)) {
    if (tag.name === 'title') title ??= tag.text;
    else if (tag.name === 'meta' && (tag.attrs.get('name') ?? '').toLowerCase() === 'description') description ??= tag.attrs.get('content');
  }
  title = title?.trim();
  description = description?.trim();
  return { ...(title ? { title } : {}), ...(description ? { description } : {}) };
}

/** llms.txt: `# Title`, then an optional `> summary` block quote. */
function parseLlmsTxt(text: string): { title?: string; description?: string } {
  const lines = text.split(/\r?\n/);
  const title = lines.find((l) => /^#\s+/.test(l))?.replace(/^#\s+/, '');
  const quote = lines.filter((l) => /^>\s?/.test(l)).map((l) => l.replace(/^>\s?/, ''));
  return { ...(title ? { title } : {}), ...(quote.length ? { description: quote.join(' ') } : {}) };
}

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

export interface ApiDiscoveryDeps {
  outbound: Pick<OutboundClient, 'request'>;
  /** Where YAML documents are parsed: a bounded worker, never the request thread. */
  parsing: Pick<ParsingPool, 'parseYaml'>;
  /** Time allowed for each fetch. */
  timeoutMs: number;
}

export function createApiDiscovery(deps: ApiDiscoveryDeps) {
  const { outbound, parsing } = deps;

  async function fetchSmall(url: string, maxBytes: number, accept: string): Promise<OutboundResponse> {
    return outbound.request({ url, maxResponseBytes: maxBytes, timeoutMs: deps.timeoutMs, headers: { accept } });
  }

  const inFlight = new Map<string, number>();
  const unlimited = {
    /** `ownerId`: whose share of the parsing pool a YAML document counts against. */
    async discover(websiteUrl: string, ownerId: string): Promise<DiscoveredApi> {
      let site: URL;
      try {
        site = new URL(websiteUrl);
      } catch {
        throw new AppError('VALIDATION_ERROR', `websiteUrl is not a valid address: ${websiteUrl}`);
      }
      if (site.protocol !== 'http:' && site.protocol !== 'https:') {
        throw new AppError('VALIDATION_ERROR', 'websiteUrl must be an http or https address');
      }
      const origin = site.origin;
      const acceptOpenApi = 'application/vnd.oai.openapi+json, application/json, application/yaml;q=0.9, */*;q=0.1';

      const wellKnown = OPENAPI_PATHS.map((p) => `${origin}${p}`);
      const [page, plugin, llms, ...candidates] = await Promise.allSettled([
        fetchSmall(site.toString(), LIMITS.page, 'text/html, application/json;q=0.9, */*;q=0.5'),
        fetchSmall(`${origin}/.well-known/ai-plugin.json`, LIMITS.plugin, 'application/json'),
        fetchSmall(`${origin}/llms.txt`, LIMITS.llms, 'text/plain, text/markdown;q=0.9, */*;q=0.1'),
        ...wellKnown.map((url) => fetchSmall(url, LIMITS.openapi, acceptOpenApi)),
      ]);
      const settled = [page!, plugin!, llms!, ...candidates];
      if (page!.status === 'rejected') {
        const error = page!.reason as unknown;
        // A refused address (private network, bad scheme) is the caller's to fix: say so.
        if (error instanceof AppError && error.status < 500) throw error;
        // Nothing answered at all: the site is unreachable.
        if (settled.every((s) => s.status === 'rejected')) {
          throw error instanceof AppError ? error : new AppError('UPSTREAM_ERROR', `Could not reach ${site.host}`, { cause: error });
        }
      }
      const value = (s: PromiseSettledResult<OutboundResponse> | undefined) => (s?.status === 'fulfilled' ? s.value : undefined);

      const documents: ApiDocumentRef[] = [];
      // OpenAPI candidates in order of preference: the page itself, service-desc links, the plugin's api.url, well-known paths.
      const found: Array<{ url: string; doc: Json }> = [];
      const toFetch: string[] = [];
      let meta: { title?: string; description?: string } = {};

      const pageResponse = value(page);
      if (ok(pageResponse)) {
        const doc = await parseOpenApi(pageResponse, parsing, ownerId);
        if (doc) found.push({ url: pageResponse.url, doc });
        else if (looksLikeHtml(pageResponse)) {
          const html = pageResponse.text();
          meta = htmlMeta(html);
          toFetch.push(...serviceDescLinks(html, pageResponse.url));
        }
      }

      let pluginManifest: Json | undefined;
      const pluginResponse = value(plugin);
      if (ok(pluginResponse) && !looksLikeHtml(pluginResponse)) {
        try {
          const parsed = JSON.parse(pluginResponse.text()) as unknown;
          if (isObject(parsed) && (str(parsed.schema_version) || isObject(parsed.api) || str(parsed.name_for_human))) {
            pluginManifest = parsed;
            documents.push({ kind: 'ai-plugin', url: pluginResponse.url });
            const apiUrl = isObject(parsed.api) ? str(parsed.api.url) : undefined;
            if (apiUrl) {
              try {
                toFetch.push(new URL(apiUrl, pluginResponse.url).toString());
              } catch {
                // not an address
              }
            }
          }
        } catch {
          // not JSON: no manifest
        }
      }

      let llmsMeta: { title?: string; description?: string } = {};
      const llmsResponse = value(llms);
      if (ok(llmsResponse) && !looksLikeHtml(llmsResponse) && llmsResponse.body.length > 0) {
        documents.push({ kind: 'llms', url: llmsResponse.url });
        llmsMeta = parseLlmsTxt(llmsResponse.text());
      }

      // Linked documents (a second round, also in parallel), unless a well-known fetch already has them.
      const wellKnownByUrl = new Map(wellKnown.map((url, i) => [url, value(candidates[i])]));
      const linked = [...new Set(toFetch)];
      const linkedResponses = await Promise.allSettled(
        linked.map((url) => {
          const already = wellKnownByUrl.get(url);
          return already ? Promise.resolve(already) : fetchSmall(url, LIMITS.openapi, acceptOpenApi);
        }),
      );
      for (const settledLink of linkedResponses) {
        const response = value(settledLink);
        const doc = ok(response) ? await parseOpenApi(response, parsing, ownerId) : undefined;
        if (doc && response) found.push({ url: response.url, doc });
      }
      for (const response of candidates.map(value)) {
        const doc = ok(response) ? await parseOpenApi(response, parsing, ownerId) : undefined;
        if (doc && response) found.push({ url: response.url, doc });
      }

      const best = found[0];
      const plugName = pluginManifest ? str(pluginManifest.name_for_human) : undefined;
      const plugDescription = pluginManifest ? str(pluginManifest.description_for_human) : undefined;
      let authSchemes: ApiAuthScheme[] = [];
      let operations: ApiOperation[] = [];
      let operationCount = 0;
      let baseUrl: string | undefined;
      let title: string | undefined;
      let description: string | undefined;
      if (best) {
        documents.unshift({ kind: 'openapi', url: best.url });
        const info = isObject(best.doc.info) ? best.doc.info : {};
        title = str(info.title);
        description = str(info.description);
        baseUrl = serverBaseUrl(best.doc, best.url);
        authSchemes = authSchemesOf(best.doc);
        ({ count: operationCount, operations } = operationsOf(best.doc));
      }
      if (authSchemes.length === 0 && pluginManifest && isObject(pluginManifest.auth)) {
        const auth = pluginManifest.auth;
        const type = str(auth.type);
        if (type === 'user_http' || type === 'service_http') {
          const scheme = str(auth.authorization_type)?.toLowerCase();
          authSchemes = [{ name: 'ai-plugin', type: 'http', ...(scheme ? { scheme } : {}) }];
        } else if (type === 'oauth') {
          authSchemes = [{ name: 'ai-plugin', type: 'oauth2' }];
        }
      }

      // The document may come from anywhere (a service-desc link, the plugin's api.url) and name
      // any server: the token's secret is sent only to the website's own site (its host or a
      // subdomain, https unless the site is http, its port if it names one), else to its origin.
      let baseUrlRejected: string | undefined;
      if (baseUrl !== undefined && siteBindingRefusal(baseUrl, site.toString()) !== undefined) {
        baseUrlRejected = baseUrl;
        baseUrl = undefined;
      }

      return {
        title: clip(title ?? plugName ?? llmsMeta.title ?? meta.title, 200),
        description: clip(description ?? plugDescription ?? llmsMeta.description ?? meta.description, 2000),
        baseUrl: baseUrl ?? origin,
        ...(baseUrlRejected !== undefined ? { baseUrlRejected } : {}),
        documents,
        authSchemes,
        operationCount,
        operations,
      };
    },
  };

  return {
    /** What `websiteUrl` publishes for machines; at most MAX_DISCOVERIES_PER_OWNER at once for `ownerId`. */
    async discover(websiteUrl: string, ownerId: string): Promise<DiscoveredApi> {
      const running = inFlight.get(ownerId) ?? 0;
      if (running >= MAX_DISCOVERIES_PER_OWNER) {
        throw new AppError('RATE_LIMITED', `Too many API discoveries at once for this account (at most ${MAX_DISCOVERIES_PER_OWNER}); try again in 1 s`, {
          headers: { 'Retry-After': '1' },
          details: { retryAfterSeconds: 1 },
        });
      }
      inFlight.set(ownerId, running + 1);
      try {
        return await unlimited.discover(websiteUrl, ownerId);
      } finally {
        const left = (inFlight.get(ownerId) ?? 1) - 1;
        if (left > 0) inFlight.set(ownerId, left);
        else inFlight.delete(ownerId);
      }
    },
  };
}

export type ApiDiscovery = ReturnType<typeof createApiDiscovery>;
