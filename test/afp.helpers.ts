/** Helpers for the AFP tests: a listening server, daemons connected to it, and bounded waits. */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { startLink, type Link } from '../daemon/link.js';
import { createPolicy } from '../daemon/policy.js';
import { CONNECT_PATH, PROTOCOL_VERSION, type Privilege } from '../src/shared/afp.protocol.js';
import type { TestApp } from './harness.js';

/** Makes the test app listen on a free loopback port (or `port`) and answers its base address. */
export async function listen(t: TestApp, port = 0): Promise<string> {
  await t.app.listen({ port, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

/** Polls `check` until it answers something truthy; fails after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T> | T, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The device named `name` once its status is `status`. */
export async function deviceWithStatus(t: TestApp, token: string, name: string, status: 'online' | 'offline', timeoutMs?: number) {
  return waitFor(
    async () => {
      const res = await t.request('GET', '/api/v1/afp/devices', { token });
      return (res.body.data as Array<{ name: string; status: string; id: string }>).find((d) => d.name === name && d.status === status);
    },
    `device ${name} to be ${status}`,
    timeoutMs,
  );
}

export interface TestDaemon {
  link: Link;
  deviceId: string;
  /** The device key it connected with; pass it again to reconnect as the same device. */
  deviceKey: string;
}

/** A new device key, as a daemon makes one on its first start. */
export const newDeviceKey = () => randomBytes(32).toString('base64url');

/** The daemon's own link code, run in this process against the server. */
export async function connectDaemon(
  base: string,
  options: { token: string; name: string; root: string; privilege: Privilege; deviceKey?: string; log?: (line: string) => void },
): Promise<TestDaemon> {
  const policy = await createPolicy(options.root, options.privilege);
  const deviceKey = options.deviceKey ?? newDeviceKey();
  const link = startLink({
    server: base,
    token: options.token,
    deviceKey,
    name: options.name,
    platform: `${process.platform}-${process.arch}`,
    version: 'test',
    policy,
    ...(options.log ? { log: options.log } : {}),
    minBackoffMs: 50,
    maxBackoffMs: 500,
  });
  const deviceId = await Promise.race([
    link.registered(),
    link.done.then((outcome) => {
      throw new Error(`the daemon stopped: ${outcome.reason}`);
    }),
  ]);
  return { link, deviceId, deviceKey };
}

/**
 * A hand-driven daemon connection: says hello (unless told not to) and then does nothing on its
 * own, so that tests can see what the server does with silence and with bad frames.
 */
export async function rawDaemon(base: string, token: string, hello: Record<string, unknown> | null = {}) {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}${CONNECT_PATH}`, { headers: { authorization: `Bearer ${token}` } });
  const frames: any[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(data.toString())));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const next = (type: string) => waitFor(() => frames.find((f) => f.type === type), `a ${type} frame`);
  if (hello) {
    ws.send(
      JSON.stringify({
        type: 'hello',
        protocol: PROTOCOL_VERSION,
        name: 'raw',
        platform: 'linux-x64',
        privilege: 'exec',
        root: '/nowhere',
        version: 'test',
        key: newDeviceKey(),
        ...hello,
      }),
    );
  }
  return { ws, frames, closed, next };
}
