import { useEffect, useRef } from 'react';
import { ACCOUNT_DISABLED, apiError, sessionHeaders, signedOut } from './api/client';
import { ignoreFailure } from './ignore-failure';

/** The account events the console reacts to (GET /api/v1/events names them). */
const WATCHED = [
  'handshake.created',
  'handshake.decided',
  'handshake.claimed',
  'handshake.revoked',
  'token.created',
  'token.revoked',
  'authorization.requested',
  'authorization.decided',
  'approval.requested',
  'approval.decided',
  'webhook.paused',
];

type Listener = (type: string) => void;
const listeners = new Set<Listener>();
let stream: AbortController | undefined;
let poll: number | undefined;

/** How long to wait before opening the stream again after it ended or failed (the server's `retry`). */
const RETRY_MS = 3000;

function notify(type: string): void {
  for (const listener of [...listeners]) listener(type);
}

function startPolling(): void {
  poll ??= window.setInterval(() => notify('poll'), 4000);
}

function stopPolling(): void {
  if (poll !== undefined) window.clearInterval(poll);
  poll = undefined;
}

/** The `event:` name of one Server-Sent Events block, if the console watches it. */
function watchedType(block: string): string | undefined {
  for (const line of block.split('\n')) {
    if (!line.startsWith('event:')) continue;
    const type = line.slice(6).trim();
    return WATCHED.includes(type) ? type : undefined;
  }
  return undefined;
}

/**
 * Reads the stream until it ends, then opens it again. With fetch rather than EventSource,
 * which cannot send headers: the session cookie acts only with the page's session binding
 * (see api/client.ts), which goes in a header.
 */
async function run(controller: AbortController): Promise<void> {
  const { signal } = controller;
  while (!signal.aborted) {
    let wait = RETRY_MS;
    try {
      const response = await fetch('/api/v1/events', { headers: { accept: 'text/event-stream', ...sessionHeaders() }, credentials: 'same-origin', signal });
      if (response.status === 401) {
        // The session is over: the page goes back to signing in, and stops listening.
        signedOut();
        return;
      }
      if (response.status === 403) {
        let body: unknown;
        await ignoreFailure(
          response.json().then((parsed: unknown) => (body = parsed)),
          'a body that is not JSON names no reason: the refusal is then not a disabled account',
        );
        const refusal = apiError(403, response.statusText, body);
        // The administrator disabled the account: the same, with the reason shown.
        if (refusal.code === ACCOUNT_DISABLED) {
          signedOut(refusal.message);
          return;
        }
      }
      // A server holding too many streams says when to come back; polling covers the wait.
      const retryAfter = Number(response.headers.get('retry-after'));
      if (!response.ok && retryAfter > 0) wait = Math.min(retryAfter, 300) * 1000;
      if (response.ok && response.body) {
        // Whatever changed before the stream was open (between a page's first load and now, or
        // while it was down) is picked up once: every listener loads again.
        notify('reconnected');
        stopPolling();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, '\n');
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const type = watchedType(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            if (type) notify(type);
          }
        }
      }
    } catch {
      // A network failure, or the stream closed by disconnect(): polled below, or done.
    }
    if (signal.aborted) return;
    startPolling();
    await new Promise((resolve) => window.setTimeout(resolve, wait));
  }
}

/**
 * One stream per tab, whatever the number of components listening: a browser opens only six
 * connections to a server over HTTP/1.1, and the server keeps a few streams per owner.
 */
function connect(): void {
  if (stream) return;
  if (typeof ReadableStream === 'undefined' || typeof TextDecoderStream === 'undefined') {
    startPolling();
    return;
  }
  stream = new AbortController();
  void run(stream);
}

function disconnect(): void {
  stream?.abort();
  stream = undefined;
  stopPolling();
}

/**
 * The owner's live events: `onChange` runs whenever something the console shows may have
 * changed (a handshake asked for, a token made…), for the given event types or all. While the
 * stream is down (a proxy that cuts it, a server restarting) it is opened again every few
 * seconds, and `onChange` also runs every few seconds, so nothing waits longer than that.
 */
export function useLiveChanges(onChange: (type: string) => void, types?: string[]): void {
  const callback = useRef(onChange);
  callback.current = onChange;
  const key = types?.join(',') ?? '*';
  useEffect(() => {
    const wanted = types ? new Set(types) : undefined;
    const listener: Listener = (type) => {
      if (!wanted || wanted.has(type) || type === 'poll' || type === 'reconnected') callback.current(type);
    };
    listeners.add(listener);
    connect();
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) disconnect();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
}
