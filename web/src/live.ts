import { useEffect, useRef } from 'react';

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
let source: EventSource | undefined;
let poll: number | undefined;

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

/**
 * One stream per tab, whatever the number of components listening: a browser opens only six
 * connections to a server over HTTP/1.1, and the server keeps a few streams per owner.
 */
function connect(): void {
  if (source || typeof EventSource === 'undefined') {
    if (!source) startPolling();
    return;
  }
  source = new EventSource('/api/v1/events');
  for (const type of WATCHED) source.addEventListener(type, (event) => notify(event.type));
  source.onopen = () => {
    // Whatever changed before the stream was open (between a page's first load and now, or
    // while it was down) is picked up once: every listener loads again.
    notify('reconnected');
    stopPolling();
  };
  source.onerror = () => startPolling();
}

function disconnect(): void {
  source?.close();
  source = undefined;
  stopPolling();
}

/**
 * The owner's live events: `onChange` runs whenever something the console shows may have
 * changed (a handshake asked for, a token made…), for the given event types or all. While the
 * stream is down (a proxy that cuts it, a server restarting) the browser reconnects on its own,
 * and `onChange` also runs every few seconds, so nothing waits longer than that.
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
