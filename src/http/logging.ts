/**
 * What Hearth writes to its log, and how: the logger's options, one masking pass over every
 * line, the request-lifecycle lines Fastify writes, and the human-readable format for development.
 */
import type { ReadStream } from 'node:fs';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, stdSerializers, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Config } from '../config.js';
import { maskHearthTokens } from '../lib/crypto.js';
import { redactUrl } from './schemas.js';

/**
 * Anything shaped like a Hearth token, under any spelling (see maskHearthTokens): a client may
 * put its token in any parameter, path or header, and none of it may reach the log.
 */
export function maskTokens(text: string): string {
  return maskHearthTokens(text);
}

/** The request as logged: method, address with its secrets masked, client address; never headers. */
function serializeRequest(request: { method: string; url: string; ip?: string; socket?: { remoteAddress?: string } }) {
  return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip ?? request.socket?.remoteAddress };
}

export function loggerOptions(config: Pick<Config, 'logLevel' | 'logFormat'>, stream?: DestinationStream): LoggerOptions & { stream?: DestinationStream } {
  const destination = config.logFormat === 'pretty' ? prettyStream(stream ?? process.stdout) : stream;
  return {
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', '*.password', '*.token', '*.secret'], censor: '[REDACTED]' },
    serializers: { req: serializeRequest },
    // The last word on secrets: every finished line, whatever wrote it (an error message echoing
    // an address, a header, a field of a module's own), passes through the token mask.
    hooks: { streamWrite: maskTokens },
    ...(destination ? { stream: destination } : {}),
  };
}

/**
 * The process's logger, made here rather than by Fastify so that the app can be built without
 * Fastify's own request logging where its lines cannot be written (see buildApp). Fastify's
 * serializers for the reply and errors, and ours for the request.
 */
export function createRootLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, stream?: DestinationStream): Logger {
  const { stream: destination, ...options } = loggerOptions(config, stream);
  return pino(
    { ...options, serializers: { err: stdSerializers.err, res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }), ...options.serializers } },
    destination ?? pino.destination(1),
  );
}

/**
 * Fastify's request-lifecycle lines, with two changes:
 * - A streamed answer (a daemon download) whose every byte was handed to the connection is
 *   complete even when the client closes the connection before Node sees the stream end. It is
 *   logged as `request completed`, not as a premature close, since the client received it whole.
 * - Without `requestLines` (the level is above info), the info lines for each request are not
 *   even attempted; errors are still logged.
 */
export class HearthLogController extends LogController {
  readonly #requestLines: boolean;

  constructor(options: { requestLines?: boolean } = {}) {
    super();
    this.#requestLines = options.requestLines ?? true;
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (this.#requestLines) super.incomingRequest(request, reply, metadata);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (error || this.#requestLines) super.requestCompleted(error, request, reply, metadata);
  }

  override streamError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE' && answeredWhole(reply)) {
      if (!this.isLogDisabled(request)) reply.log.info({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
      return;
    }
    super.streamError(error, request, reply, metadata);
  }
}

/** Where `trackFileBody` keeps the file stream a response is sending. */
const FILE_BODY = Symbol('hearth.fileBody');

/**
 * True when the response declared a length and its file stream read exactly that many bytes
 * and holds none back: every byte was handed to the connection.
 */
function answeredWhole(reply: FastifyReply): boolean {
  const body = (reply.raw as { [FILE_BODY]?: ReadStream })[FILE_BODY];
  const declared = Number(reply.getHeader('content-length'));
  return body !== undefined && Number.isFinite(declared) && body.bytesRead === declared && body.readableLength === 0;
}

/** Remembers the file a response streams, so that the log can tell a complete download from an abandoned one. */
export function trackFileBody(reply: FastifyReply, body: ReadStream): ReadStream {
  (reply.raw as { [FILE_BODY]?: ReadStream })[FILE_BODY] = body;
  return body;
}

// ---------------------------------------------------------------------------------------------
// LOG_FORMAT=pretty

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, or that the pretty line already shows in its own place. */
const SHOWN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res', 'responseTime', 'err']);

function clock(time: unknown): string {
  const date = new Date(typeof time === 'number' ? time : Date.now());
  return date.toISOString().slice(11, 23);
}

function value(v: unknown): string {
  return typeof v === 'string' && !/[\s"=]/.test(v) && v !== '' ? v : JSON.stringify(v);
}

/** How many requests in flight the pretty format remembers the method and address of. */
const PRETTY_IN_FLIGHT = 10_000;

/**
 * Log lines as a person reads them: `12:03:04.512 INFO  GET /api/v1/memory 200 3.1 ms req_…
 * request completed`, then any other fields as key=value, then an error's stack indented.
 * Fastify names the request only on its `incoming request` line; the formatter remembers it
 * until the request's last line, so the completion line carries method and address too.
 */
export function prettyFormatter(): (line: string) => string {
  const inFlight = new Map<string, string>();
  return (line) => {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return line.endsWith('\n') ? line : `${line}\n`;
    }
    const parts = [clock(entry.time), (LEVEL_NAMES[entry.level as number] ?? String(entry.level)).padEnd(5)];
    const reqId = typeof entry.reqId === 'string' ? entry.reqId : undefined;
    const req = entry.req as { method?: string; url?: string } | undefined;
    const res = entry.res as { statusCode?: number } | undefined;
    const request = req?.method ? `${req.method} ${req.url ?? ''}` : reqId ? inFlight.get(reqId) : undefined;
    if (reqId && req?.method && !res) {
      if (inFlight.size >= PRETTY_IN_FLIGHT) inFlight.delete(inFlight.keys().next().value!);
      inFlight.set(reqId, request!);
    }
    if (reqId && res) inFlight.delete(reqId);
    if (request) parts.push(request);
    if (res?.statusCode !== undefined) parts.push(String(res.statusCode));
    if (typeof entry.responseTime === 'number') parts.push(`${entry.responseTime.toFixed(1)} ms`);
    if (reqId) parts.push(reqId);
    if (typeof entry.msg === 'string') parts.push(entry.msg);
    for (const [key, v] of Object.entries(entry)) {
      if (!SHOWN.has(key) && v !== undefined) parts.push(`${key}=${value(v)}`);
    }
    let out = parts.join(' ');
    const err = entry.err as { type?: string; message?: string; stack?: string } | undefined;
    if (err) {
      const text = err.stack ?? `${err.type ?? 'Error'}: ${err.message ?? ''}`;
      out += `\n${text.split('\n').map((l) => `    ${l}`).join('\n')}`;
    }
    return `${out}\n`;
  };
}

/** A destination that writes each line in the pretty format (after masking: see loggerOptions). */
function prettyStream(out: DestinationStream): DestinationStream {
  const format = prettyFormatter();
  return { write: (line: string) => void out.write(format(line)) };
}

// ---------------------------------------------------------------------------------------------
// Request loggers

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
const LOG_METHODS: readonly LogMethod[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/**
 * A request's logger, made only when the request logs something its level lets through. Fastify
 * gives every request a child of the app's logger bound to its id; a pino child costs about a
 * microsecond to make, and at LOG_LEVEL=warn nearly every request is answered without a line.
 * A method the level silences returns at once; one that writes makes the real child (once) and
 * writes through it, so every line carries `reqId` as before.
 */
class RequestLogger {
  #child: FastifyBaseLogger | undefined;
  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
  ) {}
  get real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings));
  }
  get level(): string {
    return this.parent.level;
  }
  set level(level: string) {
    this.real.level = level;
  }
  child(bindings: Record<string, unknown>, options?: object): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
  isLevelEnabled(level: string): boolean {
    return ((this.#child ?? this.parent) as unknown as { isLevelEnabled(level: string): boolean }).isLevelEnabled(level);
  }
  silent(): void {}
}
for (const method of LOG_METHODS) {
  Object.defineProperty(RequestLogger.prototype, method, {
    value(this: RequestLogger, ...args: unknown[]) {
      if (!this.isLevelEnabled(method)) return;
      (this.real[method] as (...a: unknown[]) => void)(...args);
    },
  });
}

/**
 * Fastify's childLoggerFactory: each request's logger a child of `root` (whatever logger Fastify
 * passes, which is a stand-in when Fastify runs without its own logging), made on first use
 * (see RequestLogger), or the real child at once when the route sets its own level or serializers.
 */
export function requestLoggerFactory(root: FastifyBaseLogger) {
  return (_fastifyLogger: FastifyBaseLogger, bindings: Record<string, unknown>, options: { level?: string; serializers?: unknown }): FastifyBaseLogger => {
    if (options.level !== undefined || options.serializers !== undefined) return root.child(bindings, options as object);
    return new RequestLogger(root, bindings) as unknown as FastifyBaseLogger;
  };
}
