/**
 * The container owns what the services hold open, and the app closes it: closing the app (as
 * SIGTERM does in src/main.ts, after in-flight requests) releases the outbound pools and storage
 * with no caller closing them by hand.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';

let upstream: Server;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = createServer((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

describe('closing the app', () => {
  let t: TestApp;

  beforeAll(async () => {
    // The local stand-in upstream is on loopback.
    t = await createTestApp({ config: { allowPrivateNetwork: true } });
  });

  afterAll(async () => {
    await t.close();
  });

  it('closes the outbound pools and storage the container opened, once in-flight work is done', async () => {
    await t.createOwner();
    expect((await t.container.outbound.request({ url: upstreamUrl })).text()).toBe('ok');
    expect(await t.storage.db.selectFrom('users').select('id').execute()).toHaveLength(1);

    await t.app.close();

    // The outbound pool refuses new calls: it was closed, not merely left idle.
    await expect(t.container.outbound.request({ url: upstreamUrl })).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: expect.stringMatching(/UND_ERR_(CLOSED|DESTROYED)/),
    });
    // Storage is closed (SQLite: the connection; PostgreSQL: the pool).
    await expect(t.storage.db.selectFrom('users').select('id').execute()).rejects.toThrow();
    // Closing again (a second signal, a test's own close) is harmless.
    await expect(t.container.close()).resolves.toBeUndefined();
  });
});

describe('restarting', () => {
  it('a restarted app serves the same data on a new container, the old one closed', async () => {
    const t = await createTestApp();
    try {
      const owner = await t.createOwner();
      const before = t.container;
      await t.restart();
      expect(t.container).not.toBe(before);
      await expect(before.storage.db.selectFrom('users').select('id').execute()).rejects.toThrow();
      const me = await t.request('GET', '/api/v1/users/me', { token: owner.token });
      expect(me.status).toBe(200);
      expect(me.body.data.id).toBe(owner.id);
    } finally {
      await t.close();
    }
  });
});

describe('the parts of the container', () => {
  it('are listed in the order they start: storage first (so it stops last), each worker after what it uses', async () => {
    const t = await createTestApp();
    try {
      const names = t.container.partNames();
      // Storage is added first, so it stops last; the workers and subscriptions come after what they use.
      expect(names[0]).toBe('storage');
      expect(names.indexOf('webhooks.deliverer')).toBeGreaterThan(names.indexOf('events'));
      expect(names.indexOf('webhooks.fan-out')).toBeGreaterThan(names.indexOf('webhooks.deliverer'));
      expect(names).toEqual(expect.arrayContaining(['approvals.sweep', 'mcp.sessions-sweep', 'changes', 'parsing workers', 'outbound client']));
    } finally {
      await t.close();
    }
  });

  it('a part whose stop fails still lets storage close, and the failure is reported', async () => {
    const lines: string[] = [];
    const t = await createTestApp({ logStream: { write: (line: string) => void lines.push(line) }, config: { logLevel: 'error' } });
    const owner = await t.createOwner();
    const close = t.container.webhookDeliverer.close;
    t.container.webhookDeliverer.close = async () => {
      await close();
      throw new Error('the webhook worker would not stop');
    };
    await expect(t.app.close()).rejects.toThrow('the webhook worker would not stop');
    // Storage closed all the same, after the failure.
    await expect(t.storage.db.selectFrom('users').select('id').where('id', '=', owner.id).execute()).rejects.toThrow();
    expect(lines.join('\n')).toMatch(/webhooks\.deliverer failed to stop: the webhook worker would not stop/);
    // The test's own close (which drops its PostgreSQL schema) closes an app already closed.
    await t.close();
  });
});
