import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PATTERN_MESSAGE } from './schemas.js';
import { closeUpgradeOnceAnswered } from './upgrade.js';

/** The closed list of error codes and the status each answers with (see the conventions). */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  PLAN_LIMIT_REACHED: 402,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN: 403,
  REGISTRATION_CLOSED: 403,
  // The administrator disabled the account: its password and tokens are refused until enabled again.
  ACCOUNT_DISABLED: 403,
  PROVIDER_NOT_CONNECTED: 403,
  POLICY_DENIED: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  // A stored secret that is not what was sealed there (altered, or moved from another record):
  // the server's data, not the request, is wrong, and the operator must act.
  INTEGRITY_ERROR: 500,
  UPSTREAM_ERROR: 502,
  DEVICE_OFFLINE: 503,
  PROVIDER_NOT_CONFIGURED: 503,
  DEVICE_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface AppErrorOptions {
  details?: unknown;
  /** Extra response headers, e.g. Retry-After or WWW-Authenticate. */
  headers?: Record<string, string>;
  /** Overrides the code's usual status where the specification says so (storage's 401). */
  status?: number;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export function notFound(what: string, id: string | number): AppError {
  return new AppError('NOT_FOUND', `${what} ${id} not found`);
}

/** The parts of a request input comes from, as validation errors name them (`querystring.path`). */
export type RequestPart = 'params' | 'querystring' | 'body' | 'headers';

/** One refused input: the field in the service's own terms and what is wrong with it. */
export interface InputIssue {
  field: string;
  message: string;
}

/**
 * An error about the caller's input (400 VALIDATION_ERROR, or 409 CONFLICT for a name already
 * taken), each field named in the service's own terms (`path`, `params.title`): a service does
 * not know which part of the request carried the value, the route does and places the fields
 * with `inRequestPart`. Unplaced, the details name the bare fields. The field '' is the input as
 * a whole (a merge patch that is not an object).
 */
export class InputError extends AppError {
  readonly issues: readonly InputIssue[];

  /** `problem` completes the field's name in `details` ("must be absolute"); `message` is the sentence for a person. */
  constructor(field: string, problem: string, message?: string, code?: 'VALIDATION_ERROR' | 'CONFLICT');
  /** Several fields refused at once (every bad header, every invalid parameter), in one sentence. */
  constructor(issues: readonly InputIssue[], message: string);
  constructor(
    fieldOrIssues: string | readonly InputIssue[],
    problemOrMessage: string,
    message?: string,
    code: 'VALIDATION_ERROR' | 'CONFLICT' = 'VALIDATION_ERROR',
  ) {
    const several = typeof fieldOrIssues !== 'string';
    const issues = several ? fieldOrIssues.map((issue) => ({ ...issue })) : [{ field: fieldOrIssues, message: problemOrMessage }];
    const text = several ? problemOrMessage : (message ?? `Invalid request: ${fieldOrIssues} ${problemOrMessage}`);
    super(several ? 'VALIDATION_ERROR' : code, text, { details: issues.map((issue) => ({ ...issue })) });
    this.name = 'InputError';
    this.issues = issues;
  }
}

/**
 * Awaits a service call and answers its input errors with the fields placed in the request part
 * the route read them from: the service's `path` becomes `querystring.path`, as Ajv's own
 * validation errors for that route name it. Other errors pass unchanged.
 */
export async function inRequestPart<T>(part: RequestPart, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    throw new AppError(error.code, error.message, {
      // An empty field is the input as a whole: the part itself (`body`).
      details: error.issues.map((issue) => ({ field: issue.field ? `${part}.${issue.field}` : part, message: issue.message })),
      cause: error,
    });
  }
}

export interface ErrorBody {
  error: ErrorCode;
  message: string;
  details?: unknown;
  requestId?: string;
}

export interface AjvIssue {
  instancePath?: string;
  schemaPath?: string;
  message?: string;
  params?: Record<string, unknown>;
  keyword?: string;
  /** With Ajv's `verbose` (see validation.ts): the schema holding the failed keyword. */
  parentSchema?: Record<string, unknown>;
}

interface Detail {
  field: string;
  message: string;
}

/** How a `format` reads to a person, with an example where one helps. */
const FORMAT_WORDS: Record<string, string> = {
  'date-time': 'a date and time in ISO 8601 with a time zone, e.g. 2026-01-31T09:30:00Z',
  date: 'a date in ISO 8601, e.g. 2026-01-31',
  time: 'a time in ISO 8601, e.g. 09:30:00Z',
  email: 'an email address, e.g. me@example.com',
  uri: 'an absolute address, e.g. https://example.com/page',
  url: 'an absolute address, e.g. https://example.com/page',
  uuid: 'a UUID, e.g. 123e4567-e89b-12d3-a456-426614174000',
};

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a list (a JSON array)',
  null: 'null',
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "The scopes to grant." → "the scopes to grant", unless it starts with a name such as URL. */
function asClause(text: string): string {
  const trimmed = text.trim().replace(/\.$/, '');
  return /^[A-Z](?:[a-z]|\s)/.test(trimmed) ? trimmed[0]!.toLowerCase() + trimmed.slice(1) : trimmed;
}

/**
 * What is wrong with one value, in words a person can act on. Hearth's own schemas never show a
 * regular expression (each pattern has its words); a schema from elsewhere (a discovered API's
 * params) may lack them, and then the pattern is the only description there is.
 */
export function issueMessage(issue: AjvIssue): string {
  const params = issue.params ?? {};
  const parent = issue.parentSchema ?? {};
  const limit = typeof params.limit === 'number' ? params.limit : Number(params.limit);
  switch (issue.keyword) {
    case 'required': {
      const properties = parent.properties as Record<string, { description?: unknown } | undefined> | undefined;
      const description = properties?.[String(params.missingProperty)]?.description;
      return typeof description === 'string' && description.trim() ? `is required: ${asClause(description)}` : 'is required';
    }
    case 'additionalProperties':
      return 'is not an accepted field';
    case 'pattern': {
      const words = parent[PATTERN_MESSAGE];
      if (typeof words === 'string') return `is not valid: ${words}`;
      return typeof params.pattern === 'string' ? `does not have the accepted form (the pattern ${params.pattern})` : 'does not have the accepted form';
    }
    case 'format': {
      const format = String(params.format);
      return `must be ${FORMAT_WORDS[format] ?? `in the ${format} format`}`;
    }
    case 'type': {
      // The validator's own non-finite refusal sets no type and says it all.
      if (params.type === undefined) return issue.message ?? 'has the wrong type';
      const types = String(params.type).split(',');
      return `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    }
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${plural(limit, 'character', 'characters')} long`;
    case 'maxLength':
      return `must be at most ${plural(limit, 'character', 'characters')} long`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'maximum':
      return `must be at most ${limit}`;
    case 'exclusiveMinimum':
      return `must be greater than ${limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${limit}`;
    case 'minItems':
      return limit === 1 ? 'must not be empty: give at least one item' : `must have at least ${plural(limit, 'item', 'items')}`;
    case 'maxItems':
      return `must have at most ${plural(limit, 'item', 'items')}`;
    case 'uniqueItems':
      return `must not repeat an item (items ${String(params.j)} and ${String(params.i)} are the same)`;
    case 'minProperties':
      return limit === 1 ? 'must have at least one field' : `must have at least ${plural(limit, 'field', 'fields')}`;
    case 'maxProperties':
      return `must have at most ${plural(limit, 'field', 'fields')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'enum':
      return `must be one of: ${((params.allowedValues as unknown[]) ?? []).map(String).join(', ')}`;
    case 'anyOf':
    case 'oneOf':
      return 'does not match any of the accepted forms';
    default:
      return issue.message ?? 'is invalid';
  }
}

/** Turns Ajv's issues into `details` a client can act on: which field, what is wrong, in words. */
function validationDetails(error: FastifyError): Detail[] {
  const context = (error as FastifyError & { validationContext?: string }).validationContext ?? 'body';
  const issues = (error.validation ?? []) as AjvIssue[];
  const details = issues.map((issue) => {
    let field = issue.instancePath ? issue.instancePath.slice(1).replace(/\//g, '.') : '';
    const named =
      issue.keyword === 'required' ? issue.params?.missingProperty : issue.keyword === 'additionalProperties' ? issue.params?.additionalProperty : undefined;
    if (typeof named === 'string') field = field ? `${field}.${named}` : named;
    return { field: field ? `${context}.${field}` : context, message: issueMessage(issue) };
  });
  return mergeAlternatives(details, issues);
}

/**
 * A union (`anyOf`, e.g. a date or null, or TypeBox's usual enum of literals) fails with one issue
 * per alternative plus "must match a schema in anyOf". Folds those into one detail per field that
 * names every accepted form ("must be one of: a, b, c", "must be a date … or null"), so the
 * answer says how to fix the value.
 */
function mergeAlternatives(details: Detail[], issues: AjvIssue[]): Detail[] {
  const unions = new Set(details.filter((_, i) => issues[i]!.keyword === 'anyOf' || issues[i]!.keyword === 'oneOf').map((d) => d.field));
  if (unions.size === 0) return details;
  const groups = new Map<string, number[]>();
  details.forEach((detail, i) => {
    if (!unions.has(detail.field)) return;
    groups.set(detail.field, [...(groups.get(detail.field) ?? []), i]);
  });
  const out: Detail[] = [];
  const done = new Set<string>();
  details.forEach((detail) => {
    const group = groups.get(detail.field);
    if (!group) return void out.push(detail);
    if (done.has(detail.field)) return;
    done.add(detail.field);
    const branches = group.filter((j) => issues[j]!.keyword !== 'anyOf' && issues[j]!.keyword !== 'oneOf');
    out.push({ field: detail.field, message: alternativesMessage(branches.map((j) => issues[j]!), branches.map((j) => details[j]!.message)) });
  });
  return out;
}

function alternativesMessage(branches: AjvIssue[], messages: string[]): string {
  if (branches.length === 0) return 'does not match any of the accepted forms';
  if (branches.every((b) => b.keyword === 'const' || b.keyword === 'enum')) {
    const values = branches.flatMap((b) => (b.keyword === 'const' ? [b.params?.allowedValue] : ((b.params?.allowedValues as unknown[]) ?? [])));
    return `must be one of: ${[...new Set(values)].map(String).join(', ')}`;
  }
  const unique = [...new Set(messages)];
  if (unique.length === 1) return unique[0]!;
  if (unique.every((m) => m.startsWith('must be '))) return `must be ${unique.map((m) => m.slice('must be '.length)).join(', or ')}`;
  return unique.join('; or ');
}

/** Maps anything thrown into the one error shape. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const e = error as FastifyError;
  if (e?.validation) {
    const details = validationDetails(e);
    const first = details[0];
    const message = first ? `${first.field} ${first.message}` : 'The request is invalid';
    // The message names the first problem; a client fixing only that would meet the next one.
    const more = details.length > 1 ? ` (and ${details.length - 1} more in details)` : '';
    return new AppError('VALIDATION_ERROR', `Invalid request: ${message}${more}`, { details });
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than this server accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        'This route does not take that Content-Type; send application/json unless the route says otherwise',
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_ERROR', 'Content-Length does not match the body');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'The body is empty but Content-Type is application/json: send a JSON body or no Content-Type');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'The body is not valid JSON');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new AppError('VALIDATION_ERROR', 'The request address is malformed');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('VALIDATION_ERROR', 'A path segment of the request address is longer than this server accepts');
  }
  // The group commit's queue is full (storage/group-commit.ts): the server is overloaded, for a
  // moment. The closed list of codes has no "overloaded"; RATE_LIMITED with Retry-After tells a
  // client what to do, and 503 says it is the server's state, not the client's rate.
  if (e?.code === 'WRITES_OVERLOADED') {
    return new AppError('RATE_LIMITED', e.message, { status: 503, headers: { 'Retry-After': '1' } });
  }
  // PostgreSQL refuses text holding a NUL character (SQLite stores it): a client error, not a bug.
  if (e?.code === '22021' || e?.code === '22P05') {
    return new AppError('VALIDATION_ERROR', 'Text fields must not contain NUL (\\u0000) characters');
  }
  if (e instanceof SyntaxError && (e as FastifyError).statusCode === 400) {
    return new AppError('VALIDATION_ERROR', 'The body is not valid JSON');
  }
  const status = e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', e.message || 'Payload too large');
    if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', e.message || 'Unsupported media type');
    return new AppError('VALIDATION_ERROR', e.message || 'Bad request');
  }
  return new AppError('INTERNAL_ERROR', 'Something went wrong on the server; the request id identifies it in the logs', {
    cause: error,
  });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  const body: ErrorBody = { error: error.code, message: error.message };
  if (error.details !== undefined) body.details = error.details;
  if (error.status >= 500) body.requestId = request.id;
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.status === 401 && !error.headers['WWW-Authenticate']) {
    reply.header('WWW-Authenticate', 'Bearer realm="hearth"');
  }
  return reply.status(error.status).type('application/json; charset=utf-8').send(body);
}

/**
 * Fastify's `frameworkErrors` option: errors raised before routing (a malformed URL, an
 * over-long path parameter) bypass the error handler and the onSend hooks, and would answer
 * Fastify's own body. This answers them in the one error shape, with the request id.
 */
export function handleFrameworkError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('x-request-id', request.id);
  closeUpgradeOnceAnswered(request, reply);
  return sendError(request, reply, toAppError(error));
}

/**
 * How an answered error is logged. Only a failure nobody foresaw (500 INTERNAL_ERROR) is an
 * `error` with its stack: it is a bug to look at. A refused request (4xx) is `info`, and a
 * documented answer about something outside Hearth (502 UPSTREAM_ERROR, 503
 * PROVIDER_NOT_CONFIGURED or DEVICE_OFFLINE, 504 DEVICE_TIMEOUT) is `warn`; neither carries a
 * stack, which would only point at the line that raised the documented answer. The underlying
 * cause's code and message stay (`ENOTFOUND`, the device's refusal) so the line says why.
 */
export function logRequestError(request: FastifyRequest, appError: AppError, original: unknown): void {
  if (appError.code === 'INTERNAL_ERROR') {
    request.log.error({ err: appError.cause ?? original }, 'request failed');
    return;
  }
  const cause = appError.cause as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  const entry: Record<string, unknown> = { error: appError.code, status: appError.status };
  if (cause && typeof cause === 'object') {
    entry.cause = {
      ...(typeof cause.name === 'string' && cause.name !== 'Error' ? { name: cause.name } : {}),
      ...(typeof cause.code === 'string' ? { code: cause.code } : {}),
      ...(typeof cause.message === 'string' ? { message: cause.message } : {}),
    };
  }
  // Stored data that failed its integrity check may be tampering: an operator's matter at once.
  if (appError.code === 'INTEGRITY_ERROR') {
    request.log.error(entry, appError.message);
    return;
  }
  if (appError.status >= 500) request.log.warn(entry, appError.message);
  else request.log.info(entry, appError.message);
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The methods some route serves at `path` (an address, not a pattern), for a 405's Allow header.
 * The router itself answers, so parameters and the services wildcard count exactly as they route.
 */
function allowedMethods(app: FastifyInstance, path: string): string[] {
  return METHODS.filter((method) => {
    try {
      return app.findRoute({ method, url: path }) !== null;
    } catch {
      return false;
    }
  });
}

/** One handler for every error, from routes and from the framework. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    logRequestError(request, appError, error);
    return sendError(request, reply, appError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = allowedMethods(app, path);
    if (allowed.length > 0) {
      return sendError(
        request,
        reply,
        new AppError('METHOD_NOT_ALLOWED', `${path} does not take ${request.method}; it takes ${allowed.join(', ')}`, {
          headers: { Allow: allowed.join(', ') },
        }),
      );
    }
    const message = path.startsWith('/api/v1/api/v1')
      ? 'No such route: the base address must not include /api/v1, because every path already starts with it'
      : `No such route: ${request.method} ${path}. GET /api/v1/ lists the endpoints`;
    return sendError(request, reply, new AppError('ROUTE_NOT_FOUND', message));
  });
}
