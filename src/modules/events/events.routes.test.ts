/**
 * The account's live event stream through a listening server, read as a browser's EventSource
 * reads it: frames separated by blank lines, each with its id, event and data lines.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { SESSION_BINDING_HEADER } from '../../http/access.js';
import type { AccountEvent } from './events.schemas.js';

const ORIGIN = 'https://hearth.example.org';
/** How long a test waits for what it expects before it fails (an upper bound, never a pause). */
const WAIT_MS = 5000;

interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comments: string[];
}

/** One open stream: its status and headers, the frames read so far, and when it ended. */
class StreamReader {
  private frames: Frame[] = [];
  private cursor = 0;
  private waiters = new Set<() => void>();
  private buffer = '';
  ended = false;
  readonly end: Promise<void>;

  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    private readonly body: NodeJS.ReadableStream & { destroy(): void },
  ) {
    body.setEncoding('utf8');
    body.on('data', (chunk: string) => {
      this.buffer += chunk;
      let cut: number;
      while ((cut = this.buffer.indexOf('\n\n')) !== -1) {
        const block = this.buffer.slice(0, cut);
        this.buffer = this.buffer.slice(cut + 2);
        const frame: Frame = { comments: [] };
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) frame.comments.push(line.slice(1).trim());
          else {
            const colon = line.indexOf(':');
            const field = line.slice(0, colon) as 'id' | 'event' | 'data' | 'retry';
            frame[field] = line.slice(colon + 1).replace(/^ /, '');
          }
        }
        this.frames.push(frame);
      }
      this.wake();
    });
    this.end = new Promise((resolve) => {
      const finish = () => {
        this.ended = true;
        this.wake();
        resolve();
      };
      body.on('end', finish);
      body.on('close', finish);
      body.on('error', finish);
    });
  }

  private wake() {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** The next frame (after those already taken) that `match` accepts; frames before it are passed over. */
  async next(match: (frame: Frame) => boolean, what: string): Promise<Frame> {
    return within(
      new Promise<Frame>((resolve, reject) => {
        const look = () => {
          for (let i = this.cursor; i < this.frames.length; i++) {
            if (match(this.frames[i]!)) {
              this.cursor = i + 1;
              this.waiters.delete(look);
              return resolve(this.frames[i]!);
            }
          }
          if (this.ended) {
            this.waiters.delete(look);
            reject(new Error(`the stream ended before ${what}`));
          }
        };
        this.waiters.add(look);
        look();
      }),
      what,
    );
  }

  /** The next event (frames with only comments or retry are passed over), parsed. */
  async nextEvent(type?: string): Promise<AccountEvent> {
    const frame = await this.next((f) => f.event !== undefined && (type === undefined || f.event === type), `event ${type ?? '(any)'}`);
    const event = JSON.parse(frame.data!) as AccountEvent;
    expect(frame.id).toBe(event.id);
    expect(frame.event).toBe(event.type);
    return event;
  }

  async closed(): Promise<void> {
    await within(this.end, 'the stream to end');
  }

  close(): void {
    this.body.destroy();
  }

  /** Stops reading, as a client that cannot keep up. */
  pause(): void {
    this.body.pause();
  }

  resume(): void {
    this.body.resume();
  }

  /** How many events were read in all. */
  eventCount(): number {
    return this.frames.filter((frame) => frame.event !== undefined).length;
  }
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`)), WAIT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function listen(app: TestApp): Promise<string> {
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
}

/** Opens GET /api/v1/events as EventSource would (or with a bearer token); answers once the headers arrived. */
function openStream(base: string, headers: Record<string, string>): Promise<StreamReader> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/api/v1/events`, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      resolve(new StreamReader(res.statusCode ?? 0, res.headers, res));
    });
    req.on('error', reject);
    req.end();
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let t: TestApp;
let base: string;
let owner: Owner;
let other: Owner;
const open: StreamReader[] = [];

async function stream(headers: Record<string, string>): Promise<StreamReader> {
  const reader = await openStream(base, headers);
  open.push(reader);
  return reader;
}

async function askForAccess(ownerId: string, agentId = 'calendar-agent') {
  const res = await fetch(`${base}/api/v1/handshakes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agentId, requestedScopes: ['read'], message: 'May I read your profile? secret-looking text', ownerId }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { handshakeId: string; claimSecret: string } }).data;
}

beforeAll(async () => {
  t = await createTestApp({ config: { publicBaseUrl: ORIGIN } });
  owner = await t.createOwner('Streaming Owner');
  other = await t.createOwner('Other Owner');
  base = await listen(t);
});
afterAll(async () => {
  for (const reader of open) reader.close();
  await t.close();
});

describe('GET /api/v1/events', () => {
  it('opens an event stream that asks clients to retry after 3 s', async () => {
    const reader = await stream(bearer(owner.token));
    expect(reader.status).toBe(200);
    expect(reader.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(reader.headers['cache-control']).toBe('no-store');
    expect((await reader.next((f) => f.retry !== undefined, 'the retry line')).retry).toBe('3000');
    reader.close();
  });

  it('carries a handshake from its request to its decision and revocation, with ids and names only', async () => {
    const reader = await stream(bearer(owner.token));
    const { handshakeId, claimSecret } = await askForAccess(owner.id);
    const created = await reader.nextEvent('handshake.created');
    expect(created).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'handshake.created',
      occurredAt: expect.any(String),
      data: { handshakeId, agentId: 'calendar-agent', requestedScopes: ['read'] },
    });
    // The agent's free text is not carried.
    expect(JSON.stringify(created)).not.toContain('secret-looking');

    const approved = await t.request('POST', `/api/v1/handshakes/${handshakeId}/approve`, { token: owner.token, body: {} });
    expect(approved.status).toBe(200);
    const decided = await reader.nextEvent('handshake.decided');
    expect(decided.data).toEqual({ handshakeId, agentId: 'calendar-agent', decision: 'approved', tokenId: approved.body.data.handshake.tokenId });
    expect(JSON.stringify(decided)).not.toContain(approved.body.data.token);

    expect((await t.request('POST', `/api/v1/handshakes/${handshakeId}/claim`, { body: { claimSecret } })).status).toBe(200);
    const claimed = await reader.nextEvent('handshake.claimed');
    expect(claimed.data).toEqual({ handshakeId, agentId: 'calendar-agent', tokenId: approved.body.data.handshake.tokenId });
    expect(JSON.stringify(claimed)).not.toContain(claimSecret);

    expect((await t.request('DELETE', `/api/v1/handshakes/${handshakeId}`, { token: owner.token })).status).toBe(200);
    expect((await reader.nextEvent('handshake.revoked')).data).toMatchObject({ handshakeId });
    expect((await reader.nextEvent('token.revoked')).data).toEqual({ tokenId: approved.body.data.handshake.tokenId, kind: 'handshake' });

    const { handshakeId: second } = await askForAccess(owner.id, 'mail-agent');
    expect((await t.request('POST', `/api/v1/handshakes/${second}/deny`, { token: owner.token })).status).toBe(200);
    const denied = await reader.nextEvent('handshake.decided');
    expect(denied.data).toEqual({ handshakeId: second, agentId: 'mail-agent', decision: 'denied', tokenId: null });
    reader.close();
  });

  it('tells of tokens made and revoked, never their secrets', async () => {
    const reader = await stream(bearer(owner.token));
    const made = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'backup script', scopes: ['memory'] } });
    expect(made.status).toBe(201);
    const created = await reader.nextEvent('token.created');
    expect(created.data).toEqual({ tokenId: made.body.data.id, name: 'backup script', kind: 'api', scopes: ['memory'] });
    expect(JSON.stringify(created)).not.toContain(made.body.data.token);

    expect((await t.request('DELETE', `/api/v1/tokens/${made.body.data.id}`, { token: owner.token })).status).toBe(200);
    expect((await reader.nextEvent('token.revoked')).data).toEqual({ tokenId: made.body.data.id, kind: 'api' });
    reader.close();
  });

  it("never shows an owner another owner's events", async () => {
    const mine = await stream(bearer(owner.token));
    const theirs = await stream(bearer(other.token));
    const { handshakeId } = await askForAccess(owner.id);
    expect(await mine.nextEvent('handshake.created')).toMatchObject({ data: { handshakeId } });
    // The other owner's first event is their own: the owner's handshake, published before it, never reached them.
    const made = await t.request('POST', '/api/v1/tokens', { token: other.token, body: { name: 'theirs', scopes: ['read'] } });
    const first = await theirs.nextEvent();
    expect(first).toMatchObject({ type: 'token.created', data: { tokenId: made.body.data.id } });
    mine.close();
    theirs.close();
  });

  it("follows the console's session cookie from its own pages", async () => {
    const session = await t.request('POST', '/api/v1/auth/session', {
      body: { email: owner.email, password: owner.password },
      headers: { 'sec-fetch-site': 'same-origin', origin: ORIGIN },
    });
    const cookie = String(session.headers['set-cookie']).split(';')[0]!;
    const binding = { [SESSION_BINDING_HEADER]: session.body.data.sessionBinding as string };
    // The console reads the stream with fetch, which sends the page's session binding (EventSource
    // could not); a plain GET carries the cookie and Sec-Fetch-Site, no Origin.
    const reader = await stream({ cookie, ...binding, 'sec-fetch-site': 'same-origin' });
    expect(reader.status).toBe(200);
    const { handshakeId } = await askForAccess(owner.id);
    expect(await reader.nextEvent('handshake.created')).toMatchObject({ data: { handshakeId } });

    // Signing out of the console ends its stream.
    expect((await t.request('DELETE', '/api/v1/auth/session', { headers: { cookie, ...binding, 'sec-fetch-site': 'same-origin', origin: ORIGIN } })).status).toBe(200);
    await reader.closed();

    // Another site's page cannot open it with the owner's cookie, nor can the cookie alone.
    const refused = await stream({ cookie, ...binding, 'sec-fetch-site': 'cross-site' });
    expect(refused.status).toBe(401);
    const session2 = await t.request('POST', '/api/v1/auth/session', {
      body: { email: owner.email, password: owner.password },
      headers: { 'sec-fetch-site': 'same-origin', origin: ORIGIN },
    });
    const unbound = await stream({ cookie: String(session2.headers['set-cookie']).split(';')[0]!, 'sec-fetch-site': 'same-origin' });
    expect(unbound.status).toBe(401);
  });

  it('refuses tokens without owner rights, and requests without a token', async () => {
    const scoped = await t.tokenWithScopes(owner, ['read', 'memory', 'identity']);
    expectError(await t.request('GET', '/api/v1/events', { token: scoped }), 403, 'FORBIDDEN');
    expectError(await t.request('GET', '/api/v1/events'), 401, 'UNAUTHORIZED');
  });

  it('ends the stream of a token once it is revoked', async () => {
    const session = await t.login(owner);
    const reader = await stream(bearer(session));
    expect(reader.status).toBe(200);
    expect((await t.request('POST', '/api/v1/auth/logout', { token: session })).status).toBe(200);
    await reader.closed();
  });
});

describe('bounds', () => {
  let bounded: TestApp;
  let boundedBase: string;
  let boundedOwner: Owner;
  const readers: StreamReader[] = [];

  beforeAll(async () => {
    // The shortest heartbeat the setting allows, so that the token check it makes is seen.
    bounded = await createTestApp({ config: { events: { heartbeatMs: 1000, maxStreamsPerOwner: 2, maxStreams: 3 } } });
    boundedOwner = await bounded.createOwner('Bounded Owner');
    boundedBase = await listen(bounded);
  });
  afterAll(async () => {
    for (const reader of readers) reader.close();
    await bounded.close();
  });

  async function boundedStream(token: string): Promise<StreamReader> {
    const reader = await openStream(boundedBase, bearer(token));
    readers.push(reader);
    expect(reader.status).toBe(200);
    await reader.next((f) => f.retry !== undefined, 'the start of the stream');
    return reader;
  }

  it('closes the oldest stream when an owner opens more than allowed', async () => {
    const first = await boundedStream(boundedOwner.token);
    const second = await boundedStream(boundedOwner.token);
    const third = await boundedStream(boundedOwner.token);
    await first.closed();
    expect(second.ended).toBe(false);
    expect(third.ended).toBe(false);
    second.close();
    third.close();
  });

  it('refuses a stream past the process-wide bound with 429 and Retry-After, and takes one again once a stream ends', async () => {
    const other = await bounded.createOwner('Second Bounded Owner');
    const a = await boundedStream(boundedOwner.token);
    const b = await boundedStream(boundedOwner.token);
    const c = await boundedStream(other.token);
    const refused = await fetch(`${boundedBase}/api/v1/events`, { headers: bearer(other.token) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(((await refused.json()) as { error: string }).error).toBe('RATE_LIMITED');
    c.close();
    // The server notices the closed connection on its own time: the next stream is let in once it has.
    await expect.poll(async () => {
      const res = await fetch(`${boundedBase}/api/v1/events`, { headers: bearer(other.token) });
      const status = res.status;
      await res.body?.cancel();
      return status;
    }).toBe(200);
    a.close();
    b.close();
  });

  it('sends heartbeats, and at a heartbeat ends the stream of a token no longer valid', async () => {
    const reader = await boundedStream(boundedOwner.token);
    await reader.next((f) => f.comments.includes('heartbeat'), 'a heartbeat');
    // A new master token makes the old one invalid without a revocation event: the heartbeat's check finds it.
    const rotated = await bounded.request('POST', '/api/v1/tokens/master/regenerate', { token: boundedOwner.token });
    expect(rotated.status).toBe(200);
    boundedOwner.token = rotated.body.data.token;
    await reader.closed();
  });

  it('drops the stream of a client that stops reading, instead of buffering for it', async () => {
    const slow = await boundedStream(boundedOwner.token);
    const reading = await boundedStream(boundedOwner.token);
    slow.pause();
    // Batches of 50 kB, each read by the other stream before the next: the reader keeps up,
    // while the slow stream fills the socket's buffers (a few MB on loopback) and then its
    // unsent bytes pass the bound. 20 MB in all is well past both.
    const name = 'n'.repeat(1000);
    const total = 20_000;
    for (let sent = 0; sent < total; ) {
      for (let i = 0; i < 50; i++, sent++) {
        bounded.container.events.publish(boundedOwner.id, { type: 'token.created', data: { tokenId: `tok_${sent}`, name, kind: 'api', scopes: [] } });
      }
      await reading.next((f) => f.data?.includes(`"tok_${sent - 1}"`) === true, `event ${sent - 1}`);
    }
    expect(reading.ended).toBe(false);
    // The slow client, reading again, finds its stream ended long before the last event.
    slow.resume();
    await slow.closed();
    expect(slow.eventCount()).toBeGreaterThan(0);
    expect(slow.eventCount()).toBeLessThan(total / 2);
    reading.close();
  });

  it('ends open streams when the app closes, without holding the close up', async () => {
    const reader = await boundedStream(boundedOwner.token);
    await within(bounded.app.close(), 'the app to close');
    await reader.closed();
  });
});
