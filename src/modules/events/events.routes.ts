import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, extractToken, principalOf, sessionCookie, sessionCookieName, type Principal } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import type { EventsBus } from './events.bus.js';
import { EventStreamResponse, type AccountEvent } from './events.schemas.js';

/** The reconnection delay the stream asks of EventSource clients, in ms. */
const RETRY_MS = 3000;
/** Bytes a stream may hold unsent for a slow client before it is dropped (a heartbeat's worth of events). */
const MAX_UNSENT_BYTES = 256 * 1024;

export interface EventsRoutesDeps {
  events: Pick<EventsBus, 'subscribe'>;
  /** Whether the stream's credential is still live (revoked, expired and replaced tokens are not). */
  authenticate(secret: string): Promise<Principal | null>;
  publicBaseUrl: string;
  /** A comment line this often keeps proxies from closing an idle stream; the token is checked again each time. */
  heartbeatMs: number;
  /** Open streams per owner; opening one more closes the oldest. */
  maxStreamsPerOwner: number;
  /** Open streams the process holds, whatever the owners: past it a new one is refused with 429. */
  maxStreams: number;
}

interface OpenStream {
  close(): void;
}

/** The account's live events as Server-Sent Events, for the console. */
export function eventsRoutes(deps: EventsRoutesDeps): FastifyPluginAsyncTypebox {
  const cookieName = sessionCookieName(new URL(deps.publicBaseUrl).origin);
  return async (app) => {
    // Per owner, oldest first (a Set keeps insertion order).
    const streams = new Map<string, Set<OpenStream>>();
    let openStreams = 0;
    // Streams never end on their own: Fastify waits for open responses before it stops, so they
    // are ended before it does.
    app.addHook('preClose', async () => {
      for (const forOwner of [...streams.values()]) for (const stream of [...forOwner]) stream.close();
    });

    app.get(
      '/api/v1/events',
      {
        // What happens in the account (handshakes, tokens) is the owner's to watch.
        config: { access: access.owner() },
        schema: {
          operationId: 'streamEvents',
          summary: "The account's events as they happen (handshakes and app authorizations asked and decided, tokens, devices, connections, plan, failed sign-ins), as Server-Sent Events",
          tags: ['audit'],
          response: { 200: EventStreamResponse },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const { ownerId, tokenId } = principal;
        // Each open stream holds a socket, a timer and a listener: the process holds a bounded number.
        if (openStreams >= deps.maxStreams) {
          throw new AppError('RATE_LIMITED', `This server holds ${deps.maxStreams} event streams already; try again in a minute`, { headers: { 'Retry-After': '60' } });
        }
        // The credential the access hook accepted: the bearer token, else the console's cookie.
        const secret = extractToken(request) ?? sessionCookie(request.headers.cookie ?? '', cookieName);
        const raw = reply.raw;
        reply.hijack();
        raw.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'keep-alive',
          // Proxies that buffer answers (nginx) would hold events back.
          'x-accel-buffering': 'no',
          'x-request-id': request.id,
        });

        let closed = false;
        let unsubscribe = () => {};
        /** Ends the stream once: `abort` drops the connection instead of sending what is still unsent. */
        const finish = (abort: boolean) => {
          if (closed) return;
          closed = true;
          unsubscribe();
          clearInterval(heartbeat);
          openStreams--;
          const forOwner = streams.get(ownerId);
          forOwner?.delete(stream);
          if (forOwner?.size === 0) streams.delete(ownerId);
          if (abort) raw.destroy();
          else raw.end();
        };
        const stream: OpenStream = { close: () => finish(false) };
        /** Writes, or drops the stream when the client reads too slowly to keep up. */
        const send = (text: string) => {
          if (closed) return;
          if (raw.writableLength > MAX_UNSENT_BYTES) {
            request.log.info({ ownerId }, 'event stream dropped: the client reads too slowly');
            return finish(true);
          }
          raw.write(text);
        };

        // Declared before the stream is counted, so that whatever closes it finds the timer to clear.
        const heartbeat = setInterval(() => {
          send(': heartbeat\n\n');
          // A revocation made on another node reaches this one through the token check.
          if (!secret) return stream.close();
          deps.authenticate(secret).then(
            (current) => {
              if (current?.tokenId !== tokenId) stream.close();
            },
            (error: unknown) => request.log.warn({ err: error }, 'event stream: the token could not be checked again'),
          );
        }, deps.heartbeatMs);
        heartbeat.unref();

        openStreams++;
        let forOwner = streams.get(ownerId);
        if (!forOwner) streams.set(ownerId, (forOwner = new Set()));
        forOwner.add(stream);
        while (forOwner.size > deps.maxStreamsPerOwner) [...forOwner][0]!.close();

        raw.on('close', () => stream.close());
        unsubscribe = deps.events.subscribe(ownerId, (event: AccountEvent) => {
          send(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
          // The stream's own token revoked (a logout, for one): it ends with it, at once.
          if (event.type === 'token.revoked' && event.data.tokenId === tokenId) stream.close();
        });
        send(`retry: ${RETRY_MS}\n: connected\n\n`);
      },
    );
  };
}
