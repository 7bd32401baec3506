import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The requests the app is answering, so that closing it can wait for them before storage
 * closes. Fastify's own wait is the listener's: closing the app closes the server and waits for
 * its connections, but when the server was closed already (main.ts closes it first, to stop
 * accepting at once) that wait returns at once, and requests through `inject` were never in it.
 * Storage then closed under searches still reading it ("The database connection is not open").
 */
export interface InFlight {
  /** Resolves once no request is being answered, or after `limitMs` (answering false then). */
  drained(limitMs: number): Promise<boolean>;
}

export function trackInFlight(app: FastifyInstance): InFlight {
  let count = 0;
  const counted = new WeakSet<FastifyRequest>();
  const waiting: Array<() => void> = [];
  const finish = (request: FastifyRequest) => {
    // Once per request: an aborted request may still end with a response.
    if (!counted.delete(request)) return;
    count--;
    if (count === 0) for (const wake of waiting.splice(0)) wake();
  };
  app.addHook('onRequest', (request, reply, done) => {
    // A WebSocket's upgrade lives as long as its socket and is closed by the app's preClose: not waited for.
    if (request.headers.upgrade === undefined) {
      counted.add(request);
      count++;
      // An event stream takes over its reply (no onResponse): it ends when its response closes.
      reply.raw.once('close', () => finish(request));
    }
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    finish(request);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    finish(request);
    done();
  });
  return {
    drained(limitMs) {
      if (count === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), limitMs);
        timer.unref();
        waiting.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
  };
}
