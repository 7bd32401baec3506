// @engine-independent: no app and no database: what it checks cannot differ between engines
/**
 * The bench's load client (bench/lib/client.ts): the figures in the README are counted by it, so
 * what it counts as one answer must be one answer, whatever way the bytes arrive.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerReader, runLoad, serializeRequest, type ParsedAnswer } from '../bench/lib/client.js';

const contentLength = (status: number, body: string) =>
  `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const chunked = (status: number, parts: string[]) =>
  `HTTP/1.1 ${status} X\r\nTransfer-Encoding: chunked\r\n\r\n${parts.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('')}0\r\nx-trailer: 1\r\n\r\n`;

/** Feeds `bytes` to a reader in pieces cut at `cuts`, and answers what it read. */
function readInPieces(bytes: Buffer, cuts: number[]): ParsedAnswer[] {
  const answers: ParsedAnswer[] = [];
  const reader = new AnswerReader((answer) => answers.push(answer));
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    reader.read(bytes.subarray(from, cut));
    from = cut;
  }
  return answers;
}

describe('AnswerReader', () => {
  const stream = Buffer.from(
    contentLength(200, JSON.stringify({ data: 'x'.repeat(5000) })) +
      contentLength(404, '{"error":{"code":"NOT_FOUND","message":"No such skill"}}') +
      chunked(200, ['{"a":', '1}']) +
      'HTTP/1.1 204 No Content\r\n\r\n' +
      contentLength(201, ''),
  );
  const expected = [{ status: 200 }, { status: 404, failureBody: '{"error":{"code":"NOT_FOUND","message":"No such skill"}}' }, { status: 200 }, { status: 204 }, { status: 201 }];

  it('reads answers delimited by Content-Length, by chunks and by their status, all in one read', () => {
    expect(readInPieces(stream, [])).toEqual(expected);
  });

  it('reads the same answers whatever the reads are cut at, down to one byte at a time', () => {
    for (const step of [1, 2, 3, 7, 100, 4097]) {
      const cuts = [];
      for (let at = step; at < stream.length; at += step) cuts.push(at);
      expect(readInPieces(stream, cuts), `reads of ${step} bytes`).toEqual(expected);
    }
  });

  it('keeps only the first 300 bytes of a failing body, and nothing of a successful one', () => {
    const [failed, passed] = readInPieces(Buffer.from(contentLength(500, 'e'.repeat(1000)) + contentLength(200, 'o'.repeat(1000))), [123]);
    expect(failed).toEqual({ status: 500, failureBody: 'e'.repeat(300) });
    expect(passed).toEqual({ status: 200 });
  });

  it('refuses bytes it cannot delimit instead of miscounting', () => {
    expect(() => readInPieces(Buffer.from('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nbody'), [])).toThrow(/neither Content-Length nor chunked/);
    expect(() => readInPieces(Buffer.from('<html>\r\n\r\n'), [])).toThrow(/status line/);
    expect(() => readInPieces(Buffer.from('HTTP/1.1 2000 OK\r\ncontent-length: 0\r\n\r\n'), [])).toThrow(/status line/);
    expect(() => readInPieces(Buffer.from('HTTP/1.1 200 OK\r\ncontent-length:\r\n\r\n'), [])).toThrow(/Content-Length ""/);
    expect(() => readInPieces(Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 0x10\r\n\r\n'), [])).toThrow(/Content-Length "0x10"/);
    expect(() => readInPieces(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'), [])).toThrow(/hexadecimal/);
    expect(() => readInPieces(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2zz\r\n'), [])).toThrow(/hexadecimal/);
  });

  it('tells when the server closes the connection after an answer', () => {
    const [closing, http10, kept] = readInPieces(
      Buffer.from(
        'HTTP/1.1 200 OK\r\nConnection: close\r\ncontent-length: 0\r\n\r\n' +
          'HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n' +
          'HTTP/1.0 200 OK\r\nconnection: Keep-Alive\r\ncontent-length: 0\r\n\r\n',
      ),
      [],
    );
    expect([closing, http10, kept]).toEqual([{ status: 200, close: true }, { status: 200, close: true }, { status: 200 }]);
  });
});

describe('runLoad', () => {
  let server: Server;
  let port: number;
  let handled = 0;
  const bodies: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      handled += 1;
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        if (body) bodies.push(body);
        if (request.url === '/missing') {
          response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}');
        } else if (request.url === '/chunked') {
          response.write('x'.repeat(3000));
          response.end('y'.repeat(3000));
        } else {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: request.url, padding: 'p'.repeat(20_000) }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const request = (path: string, body?: string) => serializeRequest(`127.0.0.1:${port}`, { method: body ? 'POST' : 'GET', path, headers: {}, ...(body ? { body } : {}) });

  it('sends exactly the amount asked, each with its own body, and counts every answer once', async () => {
    handled = 0;
    bodies.length = 0;
    let n = 0;
    const outcome = await runLoad({ host: '127.0.0.1', port, connections: 7, amount: 500, next: () => request('/write', JSON.stringify({ n: n++ })) });
    expect(outcome).toMatchObject({ ok: 500, non2xx: 0, errors: 0 });
    expect(outcome.latenciesMs.length).toBe(500);
    expect(handled).toBe(500);
    expect(new Set(bodies).size).toBe(500);
  });

  it('counts large and chunked answers, and failures with the start of their body', async () => {
    let n = 0;
    const paths = ['/big', '/chunked', '/missing'];
    const outcome = await runLoad({ host: '127.0.0.1', port, connections: 3, amount: 300, next: () => request(paths[n++ % 3]!) });
    expect(outcome).toMatchObject({ ok: 200, non2xx: 100, errors: 0, firstFailure: '404 {"error":"nope"}' });
  });

  it('stops a timed run after its time, counting only answers received', async () => {
    handled = 0;
    const outcome = await runLoad({ host: '127.0.0.1', port, connections: 4, seconds: 0.3, next: () => request('/timed') });
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(290);
    expect(outcome.ok).toBeGreaterThan(0);
    expect(outcome.ok).toBeLessThanOrEqual(handled);
    expect(outcome.errors).toBe(0);
  });

  it('counts an answer that never comes as an error', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as AddressInfo).port;
    try {
      const outcome = await runLoad({ host: '127.0.0.1', port: silentPort, connections: 2, amount: 2, timeoutMs: 200, next: () => request('/') });
      expect(outcome).toMatchObject({ ok: 0, non2xx: 0, errors: 2 });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  /** A raw server: every connection answers `perConnection` requests, the last with `Connection: close`, then closes. */
  async function closingServer(perConnection: number): Promise<{ port: number; handled: () => number; close: () => Promise<void> }> {
    let handled = 0;
    const sockets = new Set<Socket>();
    const raw = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      let answered = 0;
      let pending = '';
      socket.on('data', (chunk) => {
        pending += chunk.toString('latin1');
        for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
          pending = pending.slice(end + 4);
          handled += 1;
          answered += 1;
          const last = answered === perConnection;
          socket.write(`HTTP/1.1 200 OK\r\ncontent-length: 2\r\n${last ? 'connection: close\r\n' : ''}\r\nok`);
          if (last) socket.end();
        }
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    return {
      port: (raw.address() as AddressInfo).port,
      handled: () => handled,
      close: () => new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        raw.close(() => resolve());
      }),
    };
  }

  it('opens a new connection when the server closes one after an answer, losing no request', async () => {
    const raw = await closingServer(3);
    try {
      const next = () => serializeRequest(`127.0.0.1:${raw.port}`, { method: 'GET', path: '/', headers: {} });
      const outcome = await runLoad({ host: '127.0.0.1', port: raw.port, connections: 4, amount: 300, next });
      expect(outcome).toMatchObject({ ok: 300, non2xx: 0, errors: 0 });
      expect(raw.handled()).toBe(300);
    } finally {
      await raw.close();
    }
  });

  it('ends a run whose server went away with errors, instead of waiting for ever', async () => {
    let answered = 0;
    const dying = createServer((_request, response) => {
      answered += 1;
      response.end('ok');
      if (answered === 50) {
        dying.close();
        dying.closeAllConnections();
      }
    });
    await new Promise<void>((resolve) => dying.listen(0, '127.0.0.1', resolve));
    const dyingPort = (dying.address() as AddressInfo).port;
    const next = () => serializeRequest(`127.0.0.1:${dyingPort}`, { method: 'GET', path: '/', headers: {} });
    const outcome = await runLoad({ host: '127.0.0.1', port: dyingPort, connections: 5, amount: 200, timeoutMs: 300, next });
    expect(outcome.ok).toBe(50);
    expect(outcome.ok + outcome.errors).toBe(200);
  });

  it('refuses to start when it cannot connect', async () => {
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(runLoad({ host: '127.0.0.1', port: closedPort, connections: 3, seconds: 1, next: () => request('/') })).rejects.toThrow(/could not connect/);
  });
});
