import { useEffect, useRef } from 'react';

/** The event types the console listens for when a caller names none. */
const DEFAULT_TYPES = ['handshake.created', 'handshake.decided', 'token.created', 'token.revoked', 'approval.requested', 'approval.decided', 'authorization.requested', 'authorization.decided'];

interface Subscriber {
  /** The types this subscriber wants; undefined: every type listened for. */
  wanted: Set<string> | undefined;
  notify(type: string): void;
}

/*
 * One stream per page, shared by every component that listens: the server keeps a few streams
 * per owner (opening one more closes the oldest), so a page with several live lists must not
 * open one each, or a few open tabs would keep pushing each other's streams out.
 */
const subscribers = new Set<Subscriber>();
let source: EventSource | undefined;
const listenedTypes = new Set<string>();
let poll: number | undefined;

function notifyAll(type: string) {
  for (const subscriber of [...subscribers]) if (type === 'poll' || type === 'reconnected' || !subscriber.wanted || subscriber.wanted.has(type)) subscriber.notify(type);
}

function startPolling() {
  poll ??= window.setInterval(() => notifyAll('poll'), 4000);
}

function stopPolling() {
  if (poll !== undefined) window.clearInterval(poll);
  poll = undefined;
}

const onMessage = (event: MessageEvent) => notifyAll(event.type);

function listen(types: Iterable<string>) {
  for (const type of types) {
    if (listenedTypes.has(type)) continue;
    listenedTypes.add(type);
    source?.addEventListener(type, onMessage);
  }
}

function open() {
  if (typeof EventSource === 'undefined') {
    startPolling();
    return;
  }
  source = new EventSource('/api/v1/events');
  for (const type of listenedTypes) source.addEventListener(type, onMessage);
  source.onopen = () => {
    // Anything missed while the stream was down is picked up once.
    if (poll !== undefined) notifyAll('reconnected');
    stopPolling();
  };
  source.onerror = () => startPolling();
}

function close() {
  source?.close();
  source = undefined;
  listenedTypes.clear();
  stopPolling();
}

/**
 * The owner's live events (GET /api/v1/events, server-sent events): `onChange` runs whenever
 * something the console shows may have changed (a handshake asked for, a token made…). While
 * the stream is down (a proxy that cuts it, a server restarting) the browser reconnects on its
 * own, and `onChange` also runs every few seconds, so nothing waits longer than that.
 */
export function useLiveChanges(onChange: (type: string) => void, types?: string[]): void {
  const callback = useRef(onChange);
  callback.current = onChange;
  const key = types?.join(',') ?? '*';
  useEffect(() => {
    const subscriber: Subscriber = { wanted: types ? new Set(types) : undefined, notify: (type) => callback.current(type) };
    const first = subscribers.size === 0;
    subscribers.add(subscriber);
    listen(types ?? DEFAULT_TYPES);
    if (first) open();
    return () => {
      subscribers.delete(subscriber);
      if (subscribers.size === 0) close();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
}
