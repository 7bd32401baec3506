// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { discardUnreadBody } from './body-drain.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Serves one request: runs discardUnreadBody on it with the bounds given, answers what it said. */
async function drainOnce(bytes: number, maxBytes: number, headers: Record<string, string> = {}): Promise<boolean> {
  let drained!: Promise<boolean>;
  server = createServer((req: IncomingMessage, res) => {
    drained = discardUnreadBody(req, maxBytes, 5_000);
    void drained.then((ok) => res.writeHead(413, { connection: 'close' }).end(String(ok)));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', resolve);
      res.on('error', resolve);
    });
    req.on('error', () => resolve());
    req.end(Buffer.alloc(bytes));
  });
  return drained;
}

describe('discardUnreadBody', () => {
  it('reads the rest of a body within the bound', async () => {
    expect(await drainOnce(200_000, 1_000_000)).toBe(true);
  });

  it('gives up beyond the bound, streamed or declared', async () => {
    expect(await drainOnce(200_000, 50_000, { 'transfer-encoding': 'chunked' })).toBe(false);
    expect(await drainOnce(200_000, 50_000)).toBe(false);
  });
});
