/**
 * The daemon's side of the link: one outgoing WebSocket to the server, registered by name,
 * kept alive with heartbeats, and opened again after any drop with exponential backoff and
 * jitter, until the server says reconnecting cannot help (token rejected, device removed, its
 * name bound to another daemon's key, replaced by another connection with this device's key).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import WebSocket from 'ws';
import {
  CLOSE,
  CONNECT_PATH,
  FINAL_CLOSE_CODES,
  LIMITS,
  OP_PRIVILEGE,
  PROTOCOL_VERSION,
  ServerMessage,
  type DaemonMessage,
  type Hello,
  type RequestFrame,
} from '../src/shared/afp.protocol.js';
import { ignoreFailure } from '../src/lib/ignore-failure.js';
import { killRunningCommands, runOp } from './ops.js';
import { DaemonError, type Policy } from './policy.js';

export interface LinkOptions {
  /** The server's base address (http or https), without /api/v1. */
  server: string;
  token: string;
  /** The device key (daemon/key.ts) that binds the device to this daemon. */
  deviceKey: string;
  name: string;
  platform: string;
  version: string;
  policy: Policy;
  log?: (message: string) => void;
  /** Backoff between attempts: the first delay and the ceiling. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface Link {
  /** Resolves with the device id each time the server registers this daemon. */
  registered(): Promise<string>;
  /** Resolves when the link ends for good: stop() or a final answer from the server. */
  readonly done: Promise<{ final: boolean; reason: string }>;
  stop(): Promise<void>;
}

const isServerMessage = TypeCompiler.Compile(ServerMessage);

/** The WebSocket address of the daemon endpoint: ws for http, wss for https. */
export function connectUrl(server: string): string {
  const url = new URL(server);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--server must be an http(s) address, got ${server}`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const base = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  url.pathname = base + CONNECT_PATH;
  url.search = '';
  url.hash = '';
  return url.toString();
}

/** Full jitter over an exponential ceiling: spreads the reconnections of many daemons after a restart. */
export function backoffDelay(attempt: number, minMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 20));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

export function startLink(options: LinkOptions): Link {
  const log = options.log ?? (() => {});
  const url = connectUrl(options.server);
  const minBackoff = options.minBackoffMs ?? 500;
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  let stopped = false;
  let socket: WebSocket | undefined;
  let attempt = 0;
  let wake: (() => void) | undefined;
  let waiters: Array<(id: string) => void> = [];
  let inFlight = 0;

  const hello: Hello = {
    type: 'hello',
    protocol: PROTOCOL_VERSION,
    name: options.name,
    platform: options.platform,
    privilege: options.policy.privilege,
    root: options.policy.root,
    version: options.version,
    key: options.deviceKey,
  };

  function send(ws: WebSocket, message: DaemonMessage): void {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  }

  async function handle(ws: WebSocket, request: RequestFrame): Promise<void> {
    const { id, op, args } = request;
    if (inFlight >= LIMITS.maxConcurrentRequests) {
      send(ws, { type: 'response', id, ok: false, error: { code: 'BUSY', message: `This device runs at most ${LIMITS.maxConcurrentRequests} requests at once` } });
      return;
    }
    inFlight += 1;
    // The PC's own record of what was changed on it; reads are not logged (a busy agent reads a lot).
    if (OP_PRIVILEGE[op] !== 'read') log(`${op} ${op === 'exec' ? JSON.stringify(String(args.cmd).slice(0, 200)) : String(args.path)}`);
    try {
      const result = await runOp(options.policy, op, args);
      const frame = JSON.stringify({ type: 'response', id, ok: true, result } satisfies DaemonMessage);
      if (Buffer.byteLength(frame) > LIMITS.maxMessageBytes) {
        throw new DaemonError('TOO_LARGE', `The answer is larger than ${LIMITS.maxMessageBytes} bytes, the most one message may carry`);
      }
      if (ws.readyState === WebSocket.OPEN) ws.send(frame);
    } catch (error) {
      const e =
        error instanceof DaemonError ? error : new DaemonError('INTERNAL', `The daemon failed: ${(error as Error)?.message ?? String(error)}`.slice(0, 500));
      if (e.code !== 'NOT_FOUND') log(`${op} refused: ${e.code} ${e.message}`);
      send(ws, { type: 'response', id, ok: false, error: { code: e.code, message: e.message, ...(e.details !== undefined ? { details: e.details } : {}) } });
    } finally {
      inFlight -= 1;
    }
  }

  /** One connection, from opening to closing; answers whether to try again. */
  function connectOnce(): Promise<{ retry: boolean; reason: string }> {
    return new Promise((resolve) => {
      let settled = false;
      let heartbeat: NodeJS.Timeout | undefined;
      let lastHeard = Date.now();
      const finish = (retry: boolean, reason: string) => {
        if (settled) return;
        settled = true;
        if (heartbeat) clearInterval(heartbeat);
        resolve({ retry, reason });
      };

      const ws = new WebSocket(url, {
        headers: { authorization: `Bearer ${options.token}`, 'user-agent': `hearth-afp/${options.version}` },
        maxPayload: LIMITS.maxMessageBytes,
        handshakeTimeout: 10_000,
        followRedirects: false,
      });
      socket = ws;

      ws.on('open', () => {
        lastHeard = Date.now();
        send(ws, hello);
      });

      ws.on('unexpected-response', (_request, response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.length < 16 && chunks.push(chunk));
        response.on('end', () => {
          let message = '';
          try {
            message = JSON.parse(Buffer.concat(chunks).toString('utf8')).message ?? '';
          } catch {
            /* not our error shape */
          }
          const status = response.statusCode ?? 0;
          // A rejected token, a missing scope or no such endpoint: trying again cannot help.
          const final = status === 401 || status === 403 || status === 404;
          finish(!final, `the server answered ${status}${message ? `: ${message}` : ''}`);
          ws.terminate();
        });
      });

      ws.on('message', (data, isBinary) => {
        lastHeard = Date.now();
        if (isBinary) return;
        let message: unknown;
        try {
          message = JSON.parse(data.toString());
        } catch {
          return;
        }
        if (!isServerMessage.Check(message)) return;
        switch (message.type) {
          case 'registered': {
            attempt = 0;
            log(`connected to ${options.server} as "${options.name}" (device ${message.deviceId}, privilege ${options.policy.privilege}, root ${options.policy.root})`);
            const interval = message.heartbeatMs;
            heartbeat = setInterval(() => {
              // Nothing heard for two beats and a half: the connection is dead even if TCP has not noticed.
              if (Date.now() - lastHeard > interval * 2.5) {
                log('no answer to heartbeats; reconnecting');
                ws.terminate();
                return;
              }
              send(ws, { type: 'heartbeat' });
            }, interval);
            heartbeat.unref();
            const current = waiters;
            waiters = [];
            for (const resolveWaiter of current) resolveWaiter(message.deviceId);
            break;
          }
          case 'request':
            void handle(ws, message);
            break;
          case 'heartbeat':
            break;
        }
      });

      ws.on('error', (error) => {
        if (!settled) log(`connection error: ${error.message}`);
      });

      ws.on('close', (code, reasonBuffer) => {
        const reason = reasonBuffer.toString() || `code ${code}`;
        finish(!FINAL_CLOSE_CODES.has(code), reason);
      });
    });
  }

  const done = (async () => {
    while (!stopped) {
      const outcome = await connectOnce();
      socket = undefined;
      if (stopped) break;
      if (!outcome.retry) {
        stopped = true;
        log(`the server ended the link for good: ${outcome.reason}`);
        return { final: true, reason: outcome.reason };
      }
      const wait = backoffDelay(attempt, minBackoff, maxBackoff);
      attempt += 1;
      log(`disconnected (${outcome.reason}); reconnecting in ${wait} ms`);
      const controller = new AbortController();
      wake = () => controller.abort();
      await ignoreFailure(delay(wait, undefined, { signal: controller.signal }), 'an abort is a wake-up: the wait ends early');
      wake = undefined;
    }
    return { final: false, reason: 'stopped' };
  })();

  return {
    registered: () => new Promise((resolve) => waiters.push(resolve)),
    done,
    async stop() {
      if (stopped && !socket) return;
      stopped = true;
      wake?.();
      const ending = killRunningCommands();
      const ws = socket;
      if (ws && ws.readyState !== WebSocket.CLOSED) {
        const closed = new Promise((resolve) => ws.once('close', resolve));
        if (ws.readyState === WebSocket.OPEN) ws.close(CLOSE.NORMAL, 'daemon stopping');
        else ws.terminate();
        await Promise.race([closed, delay(2000)]);
        ws.terminate();
      }
      await ending;
      await done;
    },
  };
}
