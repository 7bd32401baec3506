/**
 * Consent from the owner's console: the consent page sends the request to the console of the
 * account with the email typed, the owner decides there, and the waiting page carries the
 * decision back to the client. Through HTTP, with the steps an MCP client takes (registration,
 * PKCE, the token exchange).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkce, startPublicApp } from '../../../test/authorization.helpers.js';
import type { ApiResponse, Owner, TestApp } from '../../../test/harness.js';
import type { AccountEvent } from '../events/events.schemas.js';
import { CONSOLE_WAITING_PER_EMAIL } from './authorization.service.js';

let t: TestApp;
let owner: Owner;
let other: Owner;
let base: string;
const REDIRECT = 'http://127.0.0.1:33419/callback';

beforeAll(async () => {
  ({ t, base } = await startPublicApp());
  owner = await t.createOwner('Console Owner');
  other = await t.createOwner('Other Owner');
});
afterAll(async () => t.close());

async function register(name = 'Console Client') {
  const res = await fetch(`${base}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { client_id: string; client_name: string };
}

// Registrations are limited per address: one client serves every authorization here.
let registered: Promise<{ client_id: string; client_name: string }> | undefined;

/** An MCP client starts an authorization: sends the browser to the consent page. */
async function start(options: { scope?: string; state?: string } = {}) {
  const client = await (registered ??= register());
  const { verifier, challenge } = pkce();
  const url = new URL(`${base}/authorize`);
  const params = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: options.state ?? 'st-1', scope: options.scope ?? 'read memory', resource: `${base}/mcp` };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const page = await fetch(url, { redirect: 'manual' });
  expect(page.status).toBe(200);
  const html = await page.text();
  const requestId = /name="request_id" value="([^"]+)"/.exec(html)![1]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  return { client, verifier, requestId, csrf, html, state: params.state };
}

/** The browser presses "Send to my console" with `email`; answers the waiting page's address. */
async function sendToConsole(flow: { requestId: string; csrf: string }, email: string) {
  const res = await fetch(`${base}/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams({ request_id: flow.requestId, csrf: flow.csrf, email, decision: 'console' }),
  });
  return { status: res.status, location: res.headers.get('location'), headers: res.headers };
}

/** One refresh of the waiting page, as the browser makes it. */
async function refresh(waitPath: string) {
  const res = await fetch(`${base}${waitPath}`, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), html: await res.text(), headers: res.headers };
}

async function exchange(client: { client_id: string }, code: string, verifier: string) {
  const res = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id, resource: `${base}/mcp` }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** The events published for `who` while `work` runs. */
async function eventsDuring(who: Owner, work: () => Promise<void>): Promise<AccountEvent[]> {
  const seen: AccountEvent[] = [];
  const stop = t.container.events.subscribe(who.id, (event) => seen.push(event));
  try {
    await work();
  } finally {
    stop();
  }
  return seen;
}

describe('approving from the console', () => {
  it('sends the request to the console, approves it with fewer scopes, and the waiting page delivers the code once', async () => {
    const flow = await start({ scope: 'read memory', state: 'flow-state' });
    expect(flow.html).toContain('Send to my console');
    expect(flow.html).toContain('Email of your Hearth account');

    let sent!: Awaited<ReturnType<typeof sendToConsole>>;
    const requested = await eventsDuring(owner, async () => {
      sent = await sendToConsole(flow, owner.email.toUpperCase());
    });
    expect(sent.status).toBe(303);
    const wait = new URL(sent.location!, base);
    expect(wait.pathname).toBe('/authorize/wait');
    expect(wait.searchParams.get('request_id')).toBe(flow.requestId);
    // A fresh secret of its own: the form's CSRF value never goes into an address.
    expect(wait.searchParams.get('wait')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sent.location).not.toContain(flow.csrf);
    expect(requested).toEqual([
      expect.objectContaining({ type: 'authorization.requested', data: { requestId: flow.requestId, clientId: flow.client.client_id, clientName: 'Console Client', requestedScopes: ['read', 'memory'] } }),
    ]);

    const waiting = await refresh(sent.location!);
    expect(waiting.status).toBe(200);
    expect(waiting.html).toContain('Waiting for your decision in the Hearth console');
    expect(waiting.html).toContain(`<meta http-equiv="refresh" content="3; url=${sent.location!.replace(/&/g, '&amp;')}">`);
    expect(waiting.html).not.toContain('<script');
    expect(waiting.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(waiting.headers.get('content-security-policy')).toContain("base-uri 'none'");
    // The page has no form: it posts nowhere.
    expect(waiting.headers.get('content-security-policy')).toContain("form-action 'none'");
    expect(waiting.headers.get('cache-control')).toBe('no-store');
    expect(waiting.headers.get('referrer-policy')).toBe('no-referrer');

    const listed = await t.request('GET', '/api/v1/authorization/requests', { token: owner.token });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      {
        id: flow.requestId,
        client: { id: flow.client.client_id, name: 'Console Client', redirectHost: '127.0.0.1:33419' },
        requestedScopes: ['read', 'memory'],
        status: 'pending',
        grantedScopes: null,
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
      },
    ]);
    // The other owner's console does not see it.
    expect((await t.request('GET', '/api/v1/authorization/requests', { token: other.token })).body.data).toEqual([]);

    // A login session may decide, like the master token.
    const session = await t.login(owner);
    let approved!: ApiResponse;
    const decided = await eventsDuring(owner, async () => {
      approved = await t.request('POST', `/api/v1/authorization/requests/${flow.requestId}/approve`, { token: session, body: { scopes: ['read'] } });
    });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ id: flow.requestId, status: 'approved', grantedScopes: ['read'] });
    expect(decided).toEqual([
      expect.objectContaining({ type: 'authorization.decided', data: { requestId: flow.requestId, clientId: flow.client.client_id, clientName: 'Console Client', decision: 'approved' } }),
    ]);
    expect((await t.request('GET', '/api/v1/authorization/requests', { token: owner.token })).body.data).toEqual([]);

    // Two refreshes at once (two tabs, a double reload): exactly one carries the code.
    const [first, second] = await Promise.all([refresh(sent.location!), refresh(sent.location!)]);
    const winners = [first, second].filter((answer) => answer.status === 303);
    const losers = [first, second].filter((answer) => answer.status === 400);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    expect(losers[0]!.html).toContain('expired or was already answered');
    const back = new URL(winners[0]!.location!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('flow-state');
    expect(back.searchParams.get('iss')).toBe(base);
    const code = back.searchParams.get('code')!;
    expect(code).toMatch(/^hac_/);

    const tokens = await exchange(flow.client, code, flow.verifier);
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', scope: 'read' });
    expect((await t.request('GET', '/api/v1/identity', { token: tokens.body.access_token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/memory', { token: tokens.body.access_token })).status).toBe(403);
    // A later refresh finds the request answered.
    expect((await refresh(sent.location!)).status).toBe(400);

    const log = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'oauth.*', limit: 50 } });
    const decision = log.body.data.find((entry: { action: string; details: { requestId?: string } }) => entry.action === 'oauth.authorize' && entry.details.requestId === flow.requestId);
    expect(decision).toMatchObject({ outcome: 'success', details: { via: 'console', scopes: ['read'], requestedScopes: ['read', 'memory'] } });
  });

  it('approves as asked when no scopes are given', async () => {
    const flow = await start({ scope: 'read identity' });
    const sent = await sendToConsole(flow, owner.email);
    const approved = await t.request('POST', `/api/v1/authorization/requests/${flow.requestId}/approve`, { token: owner.token });
    expect(approved.body.data.grantedScopes).toEqual(['read', 'identity']);
    const back = new URL((await refresh(sent.location!)).location!);
    expect((await exchange(flow.client, back.searchParams.get('code')!, flow.verifier)).body.scope).toBe('read identity');
  });

  it('sends a denial back to the client as access_denied', async () => {
    const flow = await start({ state: 'deny-state' });
    const sent = await sendToConsole(flow, owner.email);
    const decided = await eventsDuring(owner, async () => {
      const denied = await t.request('POST', `/api/v1/authorization/requests/${flow.requestId}/deny`, { token: owner.token });
      expect(denied.status).toBe(200);
      expect(denied.body.data).toMatchObject({ status: 'denied', grantedScopes: null });
    });
    expect(decided.map((event) => event.type)).toEqual(['authorization.decided']);
    expect(decided[0]!.data).toMatchObject({ decision: 'denied' });
    const answer = await refresh(sent.location!);
    expect(answer.status).toBe(303);
    const back = new URL(answer.location!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('deny-state');
    expect(back.searchParams.get('iss')).toBe(base);
    expect(back.searchParams.get('code')).toBeNull();

    const log = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'oauth.authorize', limit: 50 } });
    expect(log.body.data.find((entry: { details: { requestId?: string } }) => entry.details.requestId === flow.requestId)).toMatchObject({ outcome: 'denied' });
  });

  it('decides once: a second decision is a conflict', async () => {
    const flow = await start();
    await sendToConsole(flow, owner.email);
    const path = `/api/v1/authorization/requests/${flow.requestId}`;
    const [a, b] = await Promise.all([t.request('POST', `${path}/approve`, { token: owner.token }), t.request('POST', `${path}/deny`, { token: owner.token })]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const again = await t.request('POST', `${path}/deny`, { token: owner.token });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'CONFLICT', message: expect.stringMatching(/already (approved|denied)/) });
  });

  it('expires: the waiting page says so and the console can no longer decide', async () => {
    const flow = await start();
    const sent = await sendToConsole(flow, owner.email);
    // Ten minutes pass.
    await t.storage.db.updateTable('authorization_requests').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', flow.requestId).execute();
    const answer = await refresh(sent.location!);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.html).toContain('expired');
    expect(answer.html).not.toContain('http-equiv="refresh"');
    expect((await t.request('GET', '/api/v1/authorization/requests', { token: owner.token })).body.data.some((r: { id: string }) => r.id === flow.requestId)).toBe(false);
    const late = await t.request('POST', `/api/v1/authorization/requests/${flow.requestId}/approve`, { token: owner.token });
    expect(late.status).toBe(409);
    expect(late.body.message).toMatch(/expired/);
  });

  it('lets an approval that the waiting page collects too late expire', async () => {
    const flow = await start();
    const sent = await sendToConsole(flow, owner.email);
    expect((await t.request('POST', `/api/v1/authorization/requests/${flow.requestId}/approve`, { token: owner.token })).status).toBe(200);
    await t.storage.db.updateTable('authorization_requests').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', flow.requestId).execute();
    const answer = await refresh(sent.location!);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
  });
});

describe('security', () => {
  it("answers 404 for another owner's request, as for one that does not exist", async () => {
    const flow = await start();
    await sendToConsole(flow, owner.email);
    for (const action of ['approve', 'deny']) {
      const res = await t.request('POST', `/api/v1/authorization/requests/${flow.requestId}/${action}`, { token: other.token });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
      expect((await t.request('POST', `/api/v1/authorization/requests/azr_nothing/${action}`, { token: other.token })).status).toBe(404);
    }
    // Still the owner's to decide.
    expect((await t.request('POST', `/api/v1/authorization/requests/${flow.requestId}/deny`, { token: owner.token })).status).toBe(200);
  });

  it('needs owner rights: a scoped token cannot list or decide', async () => {
    const scoped = await t.tokenWithScopes(owner, ['read', 'identity']);
    expect((await t.request('GET', '/api/v1/authorization/requests', { token: scoped })).status).toBe(403);
    expect((await t.request('GET', '/api/v1/authorization/requests')).status).toBe(401);
  });

  it('looks the same from outside whether or not an account has the email', async () => {
    const known = await start();
    const unknown = await start();
    const seen = await eventsDuring(owner, async () => {
      const toUnknown = await sendToConsole(unknown, `nobody-${randomBytes(4).toString('hex')}@example.test`);
      const toKnown = await sendToConsole(known, owner.email);
      expect(toUnknown.status).toBe(toKnown.status);
      const shape = (location: string) => location.replace(/request_id=[^&]+/, 'request_id=R').replace(/wait=[^&]+/, 'wait=W');
      expect(shape(toUnknown.location!)).toBe(shape(toKnown.location!));
      const headerNames = (headers: Headers) => [...headers.keys()].filter((name) => !['date', 'x-request-id', 'location', 'content-length'].includes(name)).sort();
      expect(headerNames(toUnknown.headers)).toEqual(headerNames(toKnown.headers));

      const pageUnknown = await refresh(toUnknown.location!);
      const pageKnown = await refresh(toKnown.location!);
      expect(pageUnknown.status).toBe(pageKnown.status);
      const normalised = (page: { html: string }, location: string) =>
        page.html.replaceAll(location.replace(/&/g, '&amp;'), 'WAIT').replace(/expires at [^.]+\./, 'expires at T.');
      expect(normalised(pageUnknown, toUnknown.location!)).toBe(normalised(pageKnown, toKnown.location!));
    });
    // Only the real owner hears of it.
    expect(seen.map((event) => event.data)).toEqual([expect.objectContaining({ requestId: known.requestId })]);
  });

  it('refuses a send that is not from its consent page, and a waiting address with a wrong secret', async () => {
    const flow = await start();
    const forged = await sendToConsole({ ...flow, csrf: 'forged' }, owner.email);
    expect(forged.status).toBe(400);
    expect(forged.location).toBeNull();
    const crossSite = await fetch(`${base}/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      body: new URLSearchParams({ request_id: flow.requestId, csrf: flow.csrf, email: owner.email, decision: 'console' }),
    });
    expect(crossSite.status).toBe(403);

    const sent = await sendToConsole(flow, owner.email);
    expect(sent.status).toBe(303);
    // Once sent, the request is the console's: a second send (to another address) is refused.
    expect((await sendToConsole(flow, other.email)).status).toBe(400);
    expect((await t.request('GET', '/api/v1/authorization/requests', { token: other.token })).body.data).toEqual([]);

    expect((await t.request('POST', `/api/v1/authorization/requests/${flow.requestId}/approve`, { token: owner.token })).status).toBe(200);
    const wrong = await refresh(`/authorize/wait?request_id=${flow.requestId}&wait=${randomBytes(32).toString('base64url')}`);
    expect(wrong.status).toBe(400);
    expect(wrong.location).toBeNull();
    // The CSRF value is not a waiting secret either.
    expect((await refresh(`/authorize/wait?request_id=${flow.requestId}&wait=${flow.csrf}`)).status).toBe(400);
    // The right one still works.
    expect((await refresh(sent.location!)).status).toBe(303);
  });

  it('counts a request sent to the console with the consent pages opened from its address (AUTH_RATE_LIMIT); a sign-in does not', async () => {
    const limited = await startPublicApp({ authRateLimitPerMinute: 3 });
    try {
      const client = await fetch(`${limited.base}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Limited Client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
      }).then((res) => res.json() as Promise<{ client_id: string }>);
      const url = new URL(`${limited.base}/authorize`);
      const params = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256', state: 's', scope: 'read' };
      for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
      const page = await fetch(url, { redirect: 'manual' });
      const html = await page.text();
      const flow = { request_id: /name="request_id" value="([^"]+)"/.exec(html)![1]!, csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]! };
      const post = (fields: Record<string, string>) =>
        fetch(`${limited.base}/authorize`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: limited.base, 'sec-fetch-site': 'same-origin' },
          body: new URLSearchParams({ ...flow, ...fields }),
        });
      // One page opened; a wrong password is the attempt limiter's to count, not this window's.
      expect((await post({ decision: 'approve', email: owner.email, password: 'not the password', scope: 'read' })).status).toBe(200);
      expect((await post({ decision: 'console', email: owner.email })).status).toBe(303);
      expect((await fetch(url, { redirect: 'manual' })).status).toBe(200);
      const refused = await fetch(url, { redirect: 'manual' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await refused.json()).toMatchObject({ error: 'RATE_LIMITED', message: expect.stringMatching(/^Too many authorization requests from this address/) });
    } finally {
      await limited.t.close();
    }
  });

  it('asks for an email when none is given, on the consent page again', async () => {
    const flow = await start();
    const res = await fetch(`${base}/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ request_id: flow.requestId, csrf: flow.csrf, email: '', decision: 'console' }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Enter the email of your Hearth account');
  });

  it(`keeps at most ${CONSOLE_WAITING_PER_EMAIL} requests waiting per email: a newer one ends the oldest, for any email alike`, async () => {
    const limited = await t.createOwner('Limited Owner');
    const unknownEmail = `nobody-${randomBytes(4).toString('hex')}@example.test`;
    for (const email of [limited.email, unknownEmail]) {
      const waits: string[] = [];
      const ids: string[] = [];
      for (let i = 0; i <= CONSOLE_WAITING_PER_EMAIL; i += 1) {
        const flow = await start();
        const sent = await sendToConsole(flow, email);
        expect(sent.status).toBe(303);
        waits.push(sent.location!);
        ids.push(flow.requestId);
      }
      const oldest = await refresh(waits[0]!);
      expect(oldest.status).toBe(400);
      expect(oldest.html).toContain('expired');
      for (const wait of waits.slice(1)) expect((await refresh(wait)).status).toBe(200);
      if (email === limited.email) {
        const listed = await t.request('GET', '/api/v1/authorization/requests', { token: limited.token });
        expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual(ids.slice(1));
      }
    }
  });
});
