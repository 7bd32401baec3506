import { useEffect, useRef } from 'react';

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
    const wanted = types ? new Set(types) : undefined;
    let poll: number | undefined;
    const startPolling = () => {
      poll ??= window.setInterval(() => callback.current('poll'), 4000);
    };
    const stopPolling = () => {
      if (poll !== undefined) window.clearInterval(poll);
      poll = undefined;
    };
    if (typeof EventSource === 'undefined') {
      startPolling();
      return stopPolling;
    }
    const source = new EventSource('/api/v1/events');
    const onMessage = (event: MessageEvent) => {
      if (!wanted || wanted.has(event.type)) callback.current(event.type);
    };
    const listened = types ?? ['handshake.created', 'handshake.decided', 'token.created', 'token.revoked', 'approval.requested', 'approval.decided', 'authorization.requested', 'authorization.decided'];
    for (const type of listened) source.addEventListener(type, onMessage);
    source.onopen = () => {
      // Anything missed while the stream was down is picked up once.
      if (poll !== undefined) callback.current('reconnected');
      stopPolling();
    };
    source.onerror = () => startPolling();
    return () => {
      source.close();
      stopPolling();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
}
