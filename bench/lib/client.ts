/**
 * The bench's load client: HTTP/1.1 over keep-alive connections, one request in flight on each,
 * written for the least work per answer.
 *
 * Why not autocannon alone: on this 2-core machine the client shares the cores with the server
 * it measures, so what the client spends per answer is taken from the server. autocannon parses
 * answers with a parser written in JavaScript and decodes every body into a string it then
 * drops, each read in a buffer of its own: 20–23 µs of CPU per 10 KB answer in the bench's
 * process (whose heap holds the seeded catalogue), more than the server spends making it, which
 * made the discovery row a measure of the client's garbage collector. This client reads into one
 * buffer per connection, finds the end of each answer from its head (Content-Length, or the
 * chunks of a chunked body) and skips the body's bytes without decoding them; it keeps the first
 * 300 bytes of a failing answer only, to say what went wrong: 9–10 µs per answer, small or
 * large. `BENCH_CLIENT=autocannon` measures with autocannon instead (see load.ts), to compare.
 *
 * Every answer is checked as far as the count needs: a status line, a head that says where the
 * body ends, and exactly that many bytes. An answer that cannot be read, a connection closed
 * under a request, or no answer within the timeout counts as an error, and the connection is
 * opened again; so is one the server closes after an answer (`Connection: close`), without an
 * error. A body that ends only when the connection closes is not read (no server measured here
 * sends one): it counts as an error.
 */
import { connect, type Socket } from 'node:net';

/** One request's method, path (with its query), headers and body. */
export interface HttpRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadPlan {
  host: string;
  port: number;
  connections: number;
  /** The bytes of the next request to send; asked once per request. */
  next(): Buffer;
  /** Stop sending after this many seconds; answers still awaited then are not counted. */
  seconds?: number;
  /** Or send exactly this many requests and wait for every answer. */
  amount?: number;
  /** An answer, or a connection, not complete after this long is an error (default 10 s). */
  timeoutMs?: number;
}

export interface LoadOutcome {
  /** Answers by status class: 2xx, and any other status. */
  ok: number;
  non2xx: number;
  errors: number;
  /** Milliseconds from the first request sent to the end (timed) or to the last answer (amount). */
  elapsedMs: number;
  /** Each answer's time from request sent to last byte received, in ms, in arrival order. */
  latenciesMs: Float64Array;
  /** The first answer with a status of 300 or more: its status and the start of its body. */
  firstFailure?: string;
}

const CRLF = Buffer.from('\r\n');
const CRLF_CRLF = Buffer.from('\r\n\r\n');
/** The longest head read: a server that sends more is not one this bench measures. */
const MAX_HEAD_BYTES = 64 * 1024;
const FAILURE_BODY_BYTES = 300;
const READ_BUFFER_BYTES = 64 * 1024;
const STATUS_LINE = /^HTTP\/(1\.[01]) ([1-5]\d\d)(?: |\r)/;
const DIGITS = /^\d{1,15}$/;
const HEX_DIGITS = /^[0-9a-fA-F]{1,12}$/;

/** The request's bytes, as a client library would write them (the body's length given). */
export function serializeRequest(host: string, request: HttpRequest): Buffer {
  let head = `${request.method} ${request.path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [name, value] of Object.entries(request.headers)) head += `${name}: ${value}\r\n`;
  if (request.body !== undefined) head += `content-length: ${Buffer.byteLength(request.body)}\r\n`;
  return Buffer.from(`${head}\r\n${request.body ?? ''}`);
}

export interface ParsedAnswer {
  status: number;
  /** Up to FAILURE_BODY_BYTES of the body, kept for statuses of 300 and more only. */
  failureBody?: string;
  /** The server closes the connection after this answer (`Connection: close`, or HTTP/1.0 without keep-alive). */
  close?: true;
}

/**
 * Reads a stream of HTTP/1.1 answers on one connection: `read` takes the bytes as they arrive
 * and calls `onAnswer` once per complete answer. Throws on bytes that are not an answer it can
 * delimit (the connection is then unusable and is opened again).
 */
export class AnswerReader {
  private state: 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer' = 'head';
  /** A head or a chunk-size line split across reads: the bytes seen so far. */
  private pending: Buffer | undefined;
  /** Body or chunk bytes still to skip. */
  private remaining = 0;
  private status = 0;
  private close = false;
  private keep: Buffer[] | undefined;
  private kept = 0;

  constructor(private readonly onAnswer: (answer: ParsedAnswer) => void) {}

  read(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      switch (this.state) {
        case 'head': {
          const end = this.lineEnd(chunk, at, CRLF_CRLF, MAX_HEAD_BYTES);
          if (end === undefined) return;
          this.startAnswer(end.bytes);
          at = end.next;
          break;
        }
        case 'body':
        case 'chunk-data': {
          const take = Math.min(this.remaining, chunk.length - at);
          this.keepBody(chunk, at, take);
          this.remaining -= take;
          at += take;
          if (this.remaining === 0) {
            if (this.state === 'body') this.finish();
            else this.state = 'chunk-end';
          }
          break;
        }
        case 'chunk-end': {
          const end = this.lineEnd(chunk, at, CRLF, 2);
          if (end === undefined) return;
          if (end.bytes.length !== 2) throw new Error('a chunk is not followed by CRLF');
          this.state = 'chunk-size';
          at = end.next;
          break;
        }
        case 'chunk-size': {
          const end = this.lineEnd(chunk, at, CRLF, 1024);
          if (end === undefined) return;
          const line = end.bytes.toString('latin1', 0, end.bytes.length - 2);
          const digits = line.split(';', 1)[0]!.trim();
          if (!HEX_DIGITS.test(digits)) throw new Error(`a chunk size that is not hexadecimal: ${JSON.stringify(line)}`);
          const size = Number.parseInt(digits, 16);
          at = end.next;
          if (size === 0) this.state = 'trailer';
          else {
            this.remaining = size;
            this.state = 'chunk-data';
          }
          break;
        }
        case 'trailer': {
          const end = this.lineEnd(chunk, at, CRLF, MAX_HEAD_BYTES);
          if (end === undefined) return;
          at = end.next;
          // The empty line ends the trailer section, and the answer.
          if (end.bytes.length === 2) this.finish();
          break;
        }
      }
    }
  }

  /** Where `marker` ends, from `at`, joined with bytes kept from earlier reads; undefined to wait for more. */
  private lineEnd(chunk: Buffer, at: number, marker: Buffer, limit: number): { bytes: Buffer; next: number } | undefined {
    if (this.pending === undefined) {
      const found = chunk.indexOf(marker, at);
      if (found !== -1) return { bytes: chunk.subarray(at, found + marker.length), next: found + marker.length };
      this.pending = Buffer.from(chunk.subarray(at));
    } else {
      const joined = Buffer.concat([this.pending, chunk.subarray(at)]);
      // The marker may start in the bytes kept before: search from just before their end.
      const found = joined.indexOf(marker, Math.max(0, this.pending.length - marker.length + 1));
      if (found !== -1) {
        const used = found + marker.length - this.pending.length;
        this.pending = undefined;
        return { bytes: joined.subarray(0, found + marker.length), next: at + used };
      }
      this.pending = joined;
    }
    if (this.pending.length > limit) throw new Error(`no end of line within ${limit} bytes`);
    return undefined;
  }

  private startAnswer(head: Buffer): void {
    // "HTTP/1.1 200 OK": three digits after the version, then a space or the line's end.
    const statusLine = STATUS_LINE.exec(head.toString('latin1', 0, Math.min(head.length, 64)));
    if (!statusLine) throw new Error('an answer that does not start with a status line');
    this.status = Number(statusLine[2]);
    let keepAlive = statusLine[1] === '1.1';
    let length: number | undefined;
    let chunked = false;
    const lines = head.toString('latin1').split('\r\n');
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!DIGITS.test(value) || (length !== undefined && length !== Number(value))) throw new Error(`an answer with Content-Length "${value}"`);
        length = Number(value);
      } else if (name === 'transfer-encoding') chunked = /(^|,)\s*chunked$/i.test(value);
      else if (name === 'connection') {
        const options = value.toLowerCase().split(',').map((option) => option.trim());
        if (options.includes('close')) keepAlive = false;
        else if (options.includes('keep-alive')) keepAlive = true;
      }
    }
    this.close = !keepAlive;
    this.keep = this.status >= 300 ? [] : undefined;
    this.kept = 0;
    if (this.status === 204 || this.status === 304 || (this.status >= 100 && this.status < 200)) {
      if (this.status >= 200) this.finish();
      return;
    }
    if (chunked) {
      this.state = 'chunk-size';
      return;
    }
    if (length === undefined) {
      throw new Error(`an answer (status ${this.status}) whose end is not given: neither Content-Length nor chunked`);
    }
    if (length === 0) {
      this.finish();
      return;
    }
    this.remaining = length;
    this.state = 'body';
  }

  private keepBody(chunk: Buffer, at: number, length: number): void {
    if (this.keep === undefined || this.kept >= FAILURE_BODY_BYTES) return;
    const take = Math.min(length, FAILURE_BODY_BYTES - this.kept);
    this.keep.push(Buffer.from(chunk.subarray(at, at + take)));
    this.kept += take;
  }

  private finish(): void {
    const answer: ParsedAnswer = { status: this.status };
    if (this.keep !== undefined) answer.failureBody = Buffer.concat(this.keep).toString('utf8');
    if (this.close) answer.close = true;
    this.keep = undefined;
    this.state = 'head';
    this.onAnswer(answer);
  }
}

/** How long to wait before opening a connection again after one was refused. */
const RECONNECT_DELAY_MS = 100;

/**
 * Runs a plan to its end: for `seconds`, or until `amount` requests are answered (or failed).
 * Rejects when the connections cannot be opened at the start; a server that stops answering
 * later ends the run with errors after `timeoutMs`, never hangs it.
 */
export async function runLoad(plan: LoadPlan): Promise<LoadOutcome> {
  if (!(plan.connections >= 1)) throw new Error(`a load needs at least one connection, not ${plan.connections}`);
  if ((plan.seconds === undefined) === (plan.amount === undefined)) throw new Error('a load runs either for `seconds` or for an `amount` of requests');
  const timeoutMs = plan.timeoutMs ?? 10_000;
  let latencies = new Float64Array(1 << 16);
  let answers = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let firstFailure: string | undefined;
  let sent = 0;
  let started = false;
  let stopped = false;
  let startedAt = 0;
  let stoppedAt = 0;
  let lastAnswer = 0;
  const open = new Set<Socket>();
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));

  const mayStillSend = () => started && !stopped && (plan.amount === undefined || sent < plan.amount);

  function record(latency: number): void {
    if (answers === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[answers++] = latency;
  }

  function stop(): void {
    if (stopped) return;
    stopped = true;
    stoppedAt = performance.now();
    for (const socket of open) socket.destroy();
    finished();
  }

  /** After every answer or failure: an amount run ends once each of its requests has one. */
  function settle(): void {
    if (plan.amount !== undefined && answers + errors >= plan.amount) stop();
  }

  /**
   * A connection in the place of one that closed or failed, tried again every
   * RECONNECT_DELAY_MS; when none opens within `timeoutMs`, the server is gone: the requests an
   * amount run has not sent yet count as errors, and the run ends.
   */
  function replace(since = performance.now()): void {
    if (!mayStillSend()) return;
    connection().then(
      (send) => send(),
      () => {
        if (stopped) return;
        if (performance.now() - since < timeoutMs) setTimeout(() => replace(since), RECONNECT_DELAY_MS);
        else {
          errors += plan.amount !== undefined ? plan.amount - sent : 1;
          stop();
        }
      },
    );
  }

  /**
   * Opens one connection; resolves with its `send` once connected. It sends again on each
   * answer, and gives its place to a new connection when it closes or fails.
   */
  function connection(): Promise<() => void> {
    return new Promise((ready, refused) => {
      const openedAt = performance.now();
      let connected = false;
      let sentAt = 0;
      let awaiting = false;
      let ended = false;
      const reader = new AnswerReader((answer) => {
        if (!awaiting) throw new Error('an answer to no request');
        awaiting = false;
        const now = performance.now();
        record(now - sentAt);
        lastAnswer = now;
        if (answer.status >= 200 && answer.status < 300) ok += 1;
        else {
          non2xx += 1;
          firstFailure ??= `${answer.status} ${answer.failureBody ?? ''}`;
        }
        settle();
        if (answer.close) end();
        else send();
      });
      // Read into this connection's own buffer, not a new one per read: at tens of thousands of
      // 10 KB answers a second, buffers allocated per read made the client's garbage collector,
      // not the server, set the pace (its cost per answer doubled once the heap was large).
      const socket = connect({
        host: plan.host,
        port: plan.port,
        noDelay: true,
        onread: {
          buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
          callback: (length: number, buffer: Uint8Array) => {
            try {
              reader.read((buffer as Buffer).subarray(0, length));
            } catch {
              end();
            }
            return true;
          },
        },
      });
      open.add(socket);
      const overdue = setInterval(() => {
        const now = performance.now();
        if ((awaiting && now - sentAt > timeoutMs) || (!connected && now - openedAt > timeoutMs)) end();
      }, Math.min(500, timeoutMs / 4));
      overdue.unref();

      function send(): void {
        if (ended) {
          // Closed before its first request (while the others were still opening).
          replace();
          return;
        }
        if (!mayStillSend()) return;
        const request = plan.next();
        sent += 1;
        awaiting = true;
        sentAt = performance.now();
        socket.write(request);
      }

      /** The connection is done: a request left unanswered is an error, and another connection takes its place. */
      function end(): void {
        if (ended) return;
        ended = true;
        clearInterval(overdue);
        open.delete(socket);
        socket.destroy();
        if (!connected) {
          refused(new Error(`could not connect to ${plan.host}:${plan.port}`));
          return;
        }
        if (stopped) return;
        if (awaiting) {
          awaiting = false;
          errors += 1;
          settle();
        }
        replace();
      }

      socket.once('connect', () => {
        connected = true;
        ready(send);
      });
      socket.on('error', end);
      socket.on('close', end);
    });
  }

  // Every connection is open before the clock starts: the rate counts answers, not handshakes.
  let senders: Array<() => void>;
  try {
    senders = await Promise.all(Array.from({ length: plan.connections }, () => connection()));
  } catch (error) {
    stop();
    throw error;
  }
  started = true;
  startedAt = performance.now();
  const timer = plan.seconds !== undefined ? setTimeout(stop, plan.seconds * 1000) : undefined;
  if (plan.amount === 0) stop();
  for (const send of senders) send();
  await done;
  clearTimeout(timer);
  const elapsedMs = (plan.seconds !== undefined ? stoppedAt : lastAnswer || stoppedAt) - startedAt;
  return {
    ok,
    non2xx,
    errors,
    elapsedMs,
    latenciesMs: latencies.subarray(0, answers),
    ...(firstFailure !== undefined ? { firstFailure } : {}),
  };
}
