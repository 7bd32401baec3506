import { InputError, type InputIssue } from '../../http/errors.js';
import type { OutboundResponse } from '../../http/outbound.js';
import { findHearthToken } from '../../lib/crypto.js';
import { jsonNestingExceeds } from '../../lib/json-depth.js';
import { methodTakesBody, placeholders, type MethodSpec } from './integrations.catalogue.js';

/**
 * How a call to a service is put together and how its answer is handed back, with the rules
 * that keep the owner's credential where it belongs:
 * - the caller names a path relative to the service's base address, never an address: absolute
 *   URLs, `//host`, backslashes and dot segments (also percent-encoded) are refused;
 * - caller headers pass an allow-list; credential, routing and transport headers never do;
 * - the credential is attached last, so nothing the caller sends replaces it;
 * - the answer carries a safe subset of the upstream headers (never Set-Cookie) and every copy
 *   of the credential an upstream echoes is replaced by [REDACTED].
 */

/** How the credential travels; `none` sends nothing. */
export interface Credential {
  placement: 'bearer' | 'header' | 'query' | 'basic' | 'none';
  /** The header (placement header) or query parameter (placement query). */
  name?: string | undefined;
  secret?: string | undefined;
}

/** A call ready for the outbound client, before the credential is attached. */
export interface UpstreamCall {
  method: string;
  /** Relative to the base address; may carry its own `?query`. */
  path: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: string | undefined;
  /**
   * Where the caller's input holds this call's parts, for error details: '' for a proxy call
   * (`path`, `query.x`, `headers.x`), `params.` for execute (`params.path`). The route places
   * the field in its request part.
   */
  inputPrefix?: string | undefined;
}

export interface ShapedResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  encoding: 'json' | 'text' | 'base64' | 'empty';
}

const REDACTED = '[REDACTED]';

function refuse(field: string, problem: string, text: string): InputError {
  return new InputError(field, problem, text);
}

/** Decodes percent-escapes until nothing changes, so `%252e%252e` is seen as `..`. */
function fullyDecoded(text: string, field: string): string {
  let current = text;
  for (let i = 0; i < 5; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      throw refuse(field, 'has a malformed percent-escape', `${field} has a malformed percent-escape (%XX)`);
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

/**
 * Whether an upstream could read `segment` (decoded) as `.` or `..`: servlet containers such as
 * Tomcat drop a `;parameter` before resolving (`..;x` is `..`), Windows servers drop trailing
 * dots and spaces (`...` and `.. .` are `..`), and some normalise compatibility forms (fullwidth
 * `．`; the caller folds them first). A segment of dots and spaces alone is never a real name
 * worth that risk.
 */
function isDotSegment(segment: string): boolean {
  // Dots and white space alone: Windows drops trailing dots and spaces repeatedly (`.. .` is `..`).
  return /^[.\s]*\.[.\s]*$/.test(segment.split(';')[0]!);
}

/**
 * A caller's path, checked: relative to the base address and unable to leave it. Answers the
 * path and its query separately (both still encoded as the caller wrote them).
 */
export function safeRelativePath(raw: string, field = 'path'): { pathname: string; search: string } {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(raw)) {
    throw refuse(field, 'must be relative to the service', `${field} must be a path relative to the service's base address, not an absolute address`);
  }
  if (raw.startsWith('//')) {
    throw refuse(field, 'must not start with //', `${field} must not start with // (that names another host); give a path like /users/me`);
  }
  if (raw.includes('\\')) throw refuse(field, 'must not contain backslashes', `${field} must not contain backslashes`);
  if (/[\u0000-\u0020\u007f]/.test(raw)) {
    throw refuse(field, 'must not contain spaces or control characters', `${field} must not contain spaces or control characters; percent-encode them`);
  }
  if (raw.includes('#')) throw refuse(field, 'must not contain a fragment', `${field} must not contain a #fragment`);
  const withSlash = raw.startsWith('/') ? raw : `/${raw}`;
  const cut = withSlash.indexOf('?');
  const pathname = cut === -1 ? withSlash : withSlash.slice(0, cut);
  const search = cut === -1 ? '' : withSlash.slice(cut + 1);
  const decoded = fullyDecoded(pathname, field);
  if (/[\u0000-\u001f\u007f]/.test(decoded)) {
    throw refuse(field, 'must not contain encoded control characters', `${field} must not contain encoded control characters (%00 to %1F, %7F)`);
  }
  // Compatibility forms are folded before the path is cut into segments, since a fullwidth
  // solidus (U+FF0F) or reverse solidus becomes a separator for an upstream that folds them.
  const folded = decoded.normalize('NFKC');
  if (folded.split(/[/\\]/).some(isDotSegment)) {
    throw refuse(
      field,
      'must not contain . or .. segments',
      `${field} must not contain . or .. segments, in any spelling (..;, %2e%2e, a segment of dots only): it cannot leave the service's base address`,
    );
  }
  if (folded.startsWith('//') || folded.includes('\\')) {
    throw refuse(field, 'must not name another host', `${field} must not name another host`);
  }
  return { pathname, search };
}

/** Query pairs of an object: arrays repeat the key, objects are sent as JSON, null is left out. */
export function queryPairs(query: Record<string, unknown> | undefined): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      pairs.push([key, typeof item === 'object' ? JSON.stringify(item) : String(item)]);
    }
  }
  return pairs;
}

/** Percent-encodes a query key or value; `$` stays as it is (OData's `$top`, legal in a query). */
function encodeQueryPart(text: string): string {
  return encodeURIComponent(text).replace(/%24/g, '$');
}

/**
 * The final address: the base address, the caller's path under it, the caller's query and the
 * credential's query parameter (replacing any of the same name the caller sent).
 */
export function targetUrl(baseUrl: string, call: Pick<UpstreamCall, 'path' | 'query' | 'inputPrefix'>, credential: Credential): URL {
  const field = `${call.inputPrefix ?? ''}path`;
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const { pathname, search } = safeRelativePath(call.path, field);
  const credentialParam = credential.placement === 'query' ? credential.name?.toLowerCase() : undefined;
  const keep = (key: string) => credentialParam === undefined || key.toLowerCase() !== credentialParam;
  const parts: string[] = [];
  for (const raw of search.split('&')) {
    if (raw === '') continue;
    const key = raw.split('=')[0]!;
    let decodedKey = key;
    try {
      decodedKey = decodeURIComponent(key.replace(/\+/g, ' '));
    } catch {
      // a malformed key is passed on as written
    }
    if (keep(decodedKey)) parts.push(raw);
  }
  for (const [key, value] of call.query) if (keep(key)) parts.push(`${encodeQueryPart(key)}=${encodeQueryPart(value)}`);
  if (credential.placement === 'query' && credential.name && credential.secret !== undefined) {
    parts.push(`${encodeURIComponent(credential.name)}=${encodeURIComponent(credential.secret)}`);
  }
  const url = new URL(`${base.origin}${basePath}${pathname}${parts.length ? `?${parts.join('&')}` : ''}`);
  // Invariants the checks above guarantee; kept so that no future change can break them silently.
  if (url.origin !== base.origin || (basePath && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`))) {
    throw refuse(field, 'must stay under the base address', `${field} must stay under the service's base address ${baseUrl}`);
  }
  return url;
}

/** Headers with the credential attached last: it replaces whatever else has that name. */
export function withCredential(headers: Record<string, string>, credential: Credential): Record<string, string> {
  const out = { ...headers };
  const set = (name: string, value: string) => {
    for (const key of Object.keys(out)) if (key.toLowerCase() === name.toLowerCase()) delete out[key];
    out[name.toLowerCase()] = value;
  };
  if (credential.secret === undefined) return out;
  if (credential.placement === 'bearer') set('authorization', `Bearer ${credential.secret}`);
  if (credential.placement === 'basic') set('authorization', `Basic ${Buffer.from(credential.secret, 'utf8').toString('base64')}`);
  if (credential.placement === 'header' && credential.name) set(credential.name, credential.secret);
  return out;
}

// --- Building a named method's call ------------------------------------------------------------

function setAt(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node = node[key] = typeof next === 'object' && next !== null && !Array.isArray(next) ? { ...(next as Record<string, unknown>) } : {};
  }
  node[keys[keys.length - 1]!] = value;
}

/**
 * A method's call from validated params: placeholders fill the path (each value encoded as one
 * segment), bodiless methods send the rest as the query, others send `queryParams` as the query
 * and the rest as the JSON body (under `bodyKey`, merged into `bodyTemplate`).
 */
export function methodCall(method: Pick<MethodSpec, 'httpMethod' | 'path' | 'queryParams' | 'bodyTemplate' | 'bodyKey'>, params: Record<string, unknown>): UpstreamCall {
  const rest: Record<string, unknown> = { ...params };
  let path = method.path;
  for (const name of placeholders(method.path)) {
    const value = String(rest[name]);
    delete rest[name];
    if (value === '.' || value === '..' || value === '') {
      throw refuse(`params.${name}`, 'must not be empty, . or ..', `params.${name} must not be empty, "." or ".."`);
    }
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  }
  if (!methodTakesBody(method.httpMethod)) {
    return { method: method.httpMethod, path, query: queryPairs(rest), headers: {} };
  }
  const query: Record<string, unknown> = {};
  for (const name of method.queryParams ?? []) {
    if (name in rest) {
      query[name] = rest[name];
      delete rest[name];
    }
  }
  let body: Record<string, unknown> | undefined;
  if (method.bodyTemplate || Object.keys(rest).length > 0) {
    body = structuredClone(method.bodyTemplate ?? {});
    if (method.bodyKey) setAt(body, method.bodyKey, rest);
    else Object.assign(body, rest);
  }
  return {
    method: method.httpMethod,
    path,
    query: queryPairs(query),
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  };
}

// --- Caller headers ---------------------------------------------------------------------------

/** Names that carry or look like credentials, in requests and in answers. */
const SENSITIVE = /cookie|token|secret|session|passw|credential|authori[sz]ation|api-?key|signature/i;
/** Set by Hearth and the HTTP client for each request; a caller's value is ignored. */
const TRANSPORT = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'expect', 'accept-encoding', 'user-agent']);
/** Standard request headers a caller may set. */
const CALLER_ALLOWED = new Set([
  'accept',
  'accept-language',
  'content-type',
  'content-language',
  'cache-control',
  'pragma',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'if-range',
  'range',
  'prefer',
  'idempotency-key',
  'openai-organization',
  'openai-project',
]);
/** Routing and identity headers: a caller never sets them. */
const CALLER_REFUSED = /^(host|forwarded|via|origin|referer|x-real-ip|x-forwarded-.*|proxy-.*|x-http-method(-override)?|x-method-override|x-original-url|x-rewrite-url)$/;

/**
 * The caller's headers that are forwarded. A credential, routing or unknown header is refused
 * with 400 (naming each), so a caller learns at once that it cannot work; transport headers are
 * ignored. `credentialHeader` is refused too, whatever its name.
 */
export function callerHeaders(headers: Record<string, string> | undefined, credentialHeader?: string): Record<string, string> {
  const out: Record<string, string> = {};
  const refused: InputIssue[] = [];
  for (const [rawName, value] of Object.entries(headers ?? {})) {
    const name = rawName.toLowerCase();
    const field = `headers.${rawName}`;
    if (TRANSPORT.has(name)) continue;
    if (name === credentialHeader?.toLowerCase() || SENSITIVE.test(name)) {
      refused.push({ field, message: 'carries credentials: Hearth attaches the service credential itself' });
    } else if (CALLER_REFUSED.test(name)) {
      refused.push({ field, message: 'is set by Hearth, never by the caller' });
    } else if (!CALLER_ALLOWED.has(name) && !name.startsWith('x-') && !/-(version|beta)$/.test(name)) {
      refused.push({
        field,
        message: 'is not forwarded: allowed are standard content negotiation and conditional headers, x-* headers and *-version / *-beta headers',
      });
    } else if (/[\r\n\0]/.test(value) || value.length > 8192) {
      refused.push({ field, message: 'has an invalid value' });
    } else {
      out[name] = value;
    }
  }
  if (refused.length) {
    throw new InputError(refused, `These headers cannot be sent through the proxy: ${refused.map((r) => r.field.slice('headers.'.length)).join(', ')}`);
  }
  return out;
}

/**
 * Refuses a call that would carry a Hearth token to the service: in the path, the query (the
 * path's own or the `query` object) or a header. The caller learns why (400) instead of the
 * token silently leaving, or silently being dropped from a request that then fails upstream.
 * Pass-through's `?token=` that authenticated the request is removed before this check.
 */
export function refuseHearthTokens(call: Pick<UpstreamCall, 'path' | 'query' | 'headers' | 'inputPrefix'>): void {
  const found: InputIssue[] = [];
  const message = "holds a Hearth token: Hearth's tokens are for Hearth and are never sent to a service";
  const prefix = call.inputPrefix ?? '';
  if (findHearthToken(call.path)) found.push({ field: `${prefix}path`, message });
  for (const [key, value] of call.query) {
    if (findHearthToken(key) || findHearthToken(value)) found.push({ field: `${prefix}query.${key}`, message });
  }
  for (const [name, value] of Object.entries(call.headers)) {
    if (findHearthToken(value)) found.push({ field: `${prefix}headers.${name}`, message });
  }
  if (found.length) {
    throw new InputError(
      found,
      `The request to the service would carry your Hearth token (in ${found.map((f) => f.field).join(', ')}). Remove it: Hearth authenticates you with the Authorization header and attaches the service's own credential itself`,
    );
  }
}

// --- The answer -------------------------------------------------------------------------------

/** Answer headers a caller may see, beside x-* ones that do not look like credentials. */
const ANSWER_HEADERS = new Set([
  'content-type',
  'content-language',
  'content-disposition',
  'content-range',
  'accept-ranges',
  'cache-control',
  'etag',
  'last-modified',
  'expires',
  'date',
  'age',
  'vary',
  'location',
  'retry-after',
  'link',
  'www-authenticate',
  'allow',
  'request-id',
  'ratelimit',
  'ratelimit-policy',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
]);

/** The forms in which an upstream could echo a secret: as sent, URL-encoded, JSON-escaped, base64. */
export function secretForms(secret: string | undefined, placement: Credential['placement']): string[] {
  if (!secret || secret.length < 4) return [];
  const forms = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1), JSON.stringify(secret).slice(1, -1).replace(/\//g, '\\/')]);
  if (placement === 'basic') forms.add(Buffer.from(secret, 'utf8').toString('base64'));
  return [...forms].sort((a, b) => b.length - a.length);
}

function redactBuffer(body: Buffer, forms: string[]): Buffer {
  let out = body;
  for (const form of forms) {
    const needle = Buffer.from(form, 'utf8');
    if (out.indexOf(needle) === -1) continue;
    const parts: Buffer[] = [];
    let from = 0;
    for (let at = out.indexOf(needle); at !== -1; at = out.indexOf(needle, from)) {
      parts.push(out.subarray(from, at), Buffer.from(REDACTED));
      from = at + needle.length;
    }
    parts.push(out.subarray(from));
    out = Buffer.concat(parts);
  }
  return out;
}

function redactText(text: string, forms: string[]): string {
  let out = text;
  for (const form of forms) out = out.split(form).join(REDACTED);
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function asUtf8(body: Buffer): string | undefined {
  try {
    return utf8.decode(body);
  } catch {
    return undefined;
  }
}

/** The answer's body as JSON when it is JSON, as text when it is text, else base64. */
function decodeBody(body: Buffer, contentType: string | undefined): Pick<ShapedResponse, 'body' | 'encoding'> {
  if (body.length === 0) return { body: null, encoding: 'empty' };
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const text = asUtf8(body);
  if (/^application\/(.+\+)?json$|^text\/json$/.test(mime) && text !== undefined) {
    // JSON nested deeper than any request may be is handed back as text: parsed, it could not
    // be serialized into the answer without overflowing the stack.
    if (jsonNestingExceeds(text)) return { body: text, encoding: 'text' };
    try {
      return { body: JSON.parse(text), encoding: 'json' };
    } catch {
      return { body: text, encoding: 'text' };
    }
  }
  const textual =
    mime.startsWith('text/') ||
    /^application\/(.+\+)?(xml|yaml)$|^application\/(javascript|ecmascript|x-www-form-urlencoded|graphql|x-ndjson|sql|csv)$/.test(mime) ||
    (mime === '' && text !== undefined && !text.includes('\u0000'));
  if (textual && text !== undefined) return { body: text, encoding: 'text' };
  return { body: body.toString('base64'), encoding: 'base64' };
}

/** The upstream answer as Hearth hands it back, with every echo of the credential removed. */
export function shapeResponse(response: Pick<OutboundResponse, 'status' | 'headers' | 'body'>, secrets: string[]): ShapedResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (name === 'set-cookie' || name === 'set-cookie2') continue;
    if (!ANSWER_HEADERS.has(name) && !(name.startsWith('x-') && !SENSITIVE.test(name))) continue;
    headers[name] = redactText(value, secrets);
  }
  return { status: response.status, headers, ...decodeBody(redactBuffer(response.body, secrets), response.headers['content-type']) };
}
