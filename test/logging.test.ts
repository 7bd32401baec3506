/**
 * What reaches the log, read from the app's real log stream: no Hearth token under any
 * spelling, expected outcomes without stacks at info or warn, only unexpected failures at
 * error, and the human-readable format.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.js';
import { AppError, registerErrorHandling } from '../src/http/errors.js';
import { HearthLogController, loggerOptions, maskTokens, prettyFormatter } from '../src/http/logging.js';
import { connectDaemon, listen, type TestDaemon } from './afp.helpers.js';
import { createTestApp, expectError, type Owner, type TestApp } from './harness.js';

interface LogLine {
  level: number;
  msg?: string;
  reqId?: string;
  err?: { stack?: string };
  res?: { statusCode?: number };
  [key: string]: unknown;
}

/** A log destination that keeps every line as written, and parsed. */
function capture() {
  const raw: string[] = [];
  return {
    stream: { write: (line: string) => void raw.push(line) },
    raw,
    text: () => raw.join(''),
    lines: (): LogLine[] => raw.map((line) => JSON.parse(line) as LogLine),
    clear: () => void raw.splice(0),
  };
}

const log = capture();
let t: TestApp;
let base: string;
let owner: Owner;
let dir: string;

beforeAll(async () => {
  t = await createTestApp({ logStream: log.stream, config: { afp: { ...loadConfig({}).afp, requestTimeoutMs: 2000, heartbeatMs: 1000 } } });
  base = await listen(t);
  owner = await t.createOwner('Logged owner');
  dir = mkdtempSync(path.join(tmpdir(), 'hearth-logging-'));
});

afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The lines one request wrote, found by the request id it answered with. */
function linesOf(requestId: unknown): LogLine[] {
  return log.lines().filter((line) => line.reqId === requestId);
}

describe('no token reaches the log, however it is sent', () => {
  it('masks a token under every spelling of the parameter, percent-encoded, in the path and in a header', async () => {
    const secret = owner.token;
    const body = secret.slice('hth_mst_'.length);
    const encoded = secret.replace(/_/g, '%5F');
    const urls = [
      `/api/v1/identity;token=${secret}`,
      `/api/v1/identity?token%00=${secret}`,
      `/api/v1/identity?token[]=${secret}`,
      `/api/v1/identity?+token=${secret}`,
      `/api/v1/identity?token+=${secret}`,
      `/api/v1/identity?access=${encoded}`,
      `/api/v1/identity?x=%68th_mst_${body}`,
      `/api/v1/identity?x=%2568th%255Fmst%255F${body}`,
      `/api/v1/identity?x=hth_%6d%73%74_${body}`,
      `/api/v1/no-such-route/${secret}`,
    ];
    for (const url of urls) {
      log.clear();
      const res = await t.request('GET', url, { headers: { 'x-custom': secret } });
      expect(res.status, url).toBeGreaterThanOrEqual(400);
      const written = log.text();
      expect(written, url).toContain('"url"');
      expect(written, url).not.toContain(body);
      expect(written, url).toContain('hth_mst_[REDACTED]');
    }
  });

  it('still masks the query token, an OAuth code and state by name', async () => {
    log.clear();
    await t.request('GET', '/api/v1/identity?token=not-a-token-shape&code=c0de&state=st4te');
    const written = log.text();
    for (const value of ['not-a-token-shape', 'c0de', 'st4te']) expect(written).not.toContain(value);
  });

  it('the mask keeps the kind, and leaves prose and short look-alikes alone', () => {
    expect(maskTokens('a hth_pat_0123456789abcdefABCDEF0123456789abcdef b')).toBe('a hth_pat_[REDACTED] b');
    expect(maskTokens('hth%5Fagt%5F0123456789abcdefXYZ')).toBe('hth_agt_[REDACTED]');
    expect(maskTokens('tokens look like hth_pat_…')).toBe('tokens look like hth_pat_…');
  });
});

describe('expected outcomes are not errors', () => {
  const stackless = (lines: LogLine[]) => lines.every((line) => !line.err?.stack && !JSON.stringify(line).includes('    at '));

  it('a 4xx is info, without a stack', async () => {
    log.clear();
    const res = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { nothing: true } });
    expectError(res, 400, 'VALIDATION_ERROR');
    const lines = linesOf(res.headers['x-request-id']);
    expect(lines.find((line) => line.error === 'VALIDATION_ERROR')?.level).toBe(30);
    expect(Math.max(...lines.map((line) => line.level))).toBe(30);
    expect(stackless(lines)).toBe(true);
  });

  it('503 PROVIDER_NOT_CONFIGURED is a warning without a stack', async () => {
    log.clear();
    const res = await t.request('GET', '/api/v1/oauth/authorize/google', { token: owner.token });
    expectError(res, 503, 'PROVIDER_NOT_CONFIGURED');
    const lines = linesOf(res.headers['x-request-id']);
    expect(lines.find((line) => line.error === 'PROVIDER_NOT_CONFIGURED')?.level).toBe(40);
    expect(Math.max(...lines.map((line) => line.level))).toBe(40);
    expect(stackless(lines)).toBe(true);
  });

  it('an upstream host that does not resolve (502) is a warning naming ENOTFOUND, without a stack', async () => {
    const token = await t.tokenWithScopes(owner, ['vault']);
    log.clear();
    const res = await t.request('POST', '/api/v1/vault/discover-api', { token, body: { websiteUrl: 'http://hearth-log-test.invalid/' } });
    expectError(res, 502, 'UPSTREAM_ERROR');
    const lines = linesOf(res.headers['x-request-id']);
    const line = lines.find((l) => l.error === 'UPSTREAM_ERROR');
    expect(line?.level).toBe(40);
    expect(line?.cause).toMatchObject({ code: 'ENOTFOUND' });
    expect(Math.max(...lines.map((l) => l.level))).toBe(40);
    expect(stackless(lines)).toBe(true);
  });

  it("an exec that runs past the caller's own timeout (504) is a warning without a stack", async () => {
    const token = await t.tokenWithScopes(owner, ['devices']);
    const daemon: TestDaemon = await connectDaemon(base, { token, name: 'logged-pc', root: dir, privilege: 'exec' });
    try {
      log.clear();
      const res = await t.request('POST', `/api/v1/afp/${daemon.deviceId}/exec`, { token, body: { cmd: 'sleep 5', timeout: 200 } });
      expectError(res, 504, 'DEVICE_TIMEOUT');
      const lines = linesOf(res.headers['x-request-id']);
      expect(lines.find((line) => line.error === 'DEVICE_TIMEOUT')?.level).toBe(40);
      expect(Math.max(...lines.map((line) => line.level))).toBe(40);
      expect(stackless(lines)).toBe(true);
    } finally {
      await daemon.link.stop();
    }
  });

  it('a download the client received whole is logged as completed, even when the client hangs up at once', async () => {
    // A stand-in for the daemon build, which takes minutes: an executable-sized file.
    const file = path.join(dir, 'hearth-afp-linux');
    const size = 8 * 1024 * 1024;
    writeFileSync(file, Buffer.alloc(size, 7));
    const downloads = t.container.afpDownloads as { get: (platform: string) => Promise<unknown> };
    const realGet = downloads.get;
    downloads.get = async () => ({ platform: 'linux', file, filename: 'hearth-afp-linux', size, nodeVersion: process.versions.node });
    try {
      log.clear();
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        // Like a downloader that closes the connection as soon as it has Content-Length bytes.
        ids.push(
          await new Promise<string>((resolve, reject) => {
            const req = httpRequest(`${base}/api/v1/afp/download/linux`, { agent: false }, (res) => {
              let received = 0;
              res.on('data', (chunk: Buffer) => {
                received += chunk.length;
                if (received === size) {
                  res.socket.destroy();
                  resolve(String(res.headers['x-request-id']));
                }
              });
              res.on('error', reject);
            });
            req.on('error', reject);
            req.end();
          }),
        );
      }
      // Every download gets its closing line; wait for the last one to be written.
      await vi.waitFor(() => expect(ids.filter((id) => !linesOf(id).some((line) => line.res))).toEqual([]), { timeout: 5000, interval: 20 });
      for (const id of ids) {
        const lines = linesOf(id);
        expect(lines.map((line) => line.msg)).toContain('request completed');
        expect(lines.map((line) => line.msg)).not.toContain('stream closed prematurely');
        expect(Math.max(...lines.map((line) => line.level))).toBe(30);
      }
    } finally {
      downloads.get = realGet;
    }
  });

  it('an unexpected failure is an error, with its stack', async () => {
    const out = capture();
    const app = Fastify({ logger: loggerOptions({ logLevel: 'info', logFormat: 'json' }, out.stream), logController: new HearthLogController() });
    registerErrorHandling(app);
    app.get('/bug', async () => {
      throw new TypeError('cannot read properties of undefined');
    });
    app.get('/refused', async () => {
      throw new AppError('CONFLICT', 'Already there');
    });
    expect((await app.inject({ method: 'GET', url: '/bug' })).statusCode).toBe(500);
    expect((await app.inject({ method: 'GET', url: '/refused' })).statusCode).toBe(409);
    await app.close();
    const failed = out.lines().find((line) => line.msg === 'request failed');
    expect(failed?.level).toBe(50);
    expect(failed?.err?.stack).toMatch(/TypeError: cannot read properties of undefined\n\s+at /);
    const refused = out.lines().find((line) => line.msg === 'Already there');
    expect(refused).toMatchObject({ level: 30, error: 'CONFLICT', status: 409 });
    expect(refused?.err).toBeUndefined();
  });
});

describe('LOG_LEVEL=warn (production)', () => {
  it('writes no line for an ordinary request, and a warning with its request id, masked', async () => {
    const out = capture();
    const quiet = await createTestApp({ logStream: out.stream, config: { logLevel: 'warn' } });
    try {
      const quietOwner = await quiet.createOwner('Quiet owner');
      expect((await quiet.request('GET', '/api/v1/memory', { token: quietOwner.token })).status).toBe(200);
      expect(out.raw).toEqual([]);

      const res = await quiet.request('GET', `/api/v1/oauth/authorize/google?token=${quietOwner.token}`);
      expectError(res, 503, 'PROVIDER_NOT_CONFIGURED');
      const lines = out.lines();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, reqId: res.headers['x-request-id'], error: 'PROVIDER_NOT_CONFIGURED' });
      expect(out.text()).not.toContain(quietOwner.token);

      // The app's own logger writes through the same destination.
      quiet.app.log.warn('a warning of the app');
      expect(out.lines().at(-1)).toMatchObject({ level: 40, msg: 'a warning of the app' });
    } finally {
      await quiet.close();
    }
  });
});

describe('LOG_FORMAT', () => {
  it('is json by default and accepts pretty; anything else is refused at start', () => {
    expect(loadConfig({}).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'fancy' })).toThrow(/LOG_FORMAT must be one of json, pretty/);
  });

  it('pretty writes one readable line a request: time, level, method and address, status, duration, id, message', async () => {
    const out = capture();
    const pretty = await createTestApp({ logStream: out.stream, config: { logFormat: 'pretty' } });
    try {
      const res = await pretty.request('GET', `/api/v1/?token=${owner.token}`);
      expect(res.status).toBe(200);
      const completed = out.raw.find((line) => line.includes('request completed'));
      expect(completed).toMatch(
        new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  GET /api/v1/\\?token=\\[REDACTED\\] 200 \\d+\\.\\d ms ${res.headers['x-request-id']} request completed\\n$`),
      );
      expect(out.text()).not.toContain(owner.token);
    } finally {
      await pretty.close();
    }
  });

  it('pretty shows other fields as key=value and an error stack indented under its line', () => {
    const line = JSON.stringify({ level: 50, time: Date.UTC(2026, 0, 2, 3, 4, 5, 6), msg: 'request failed', reqId: 'req_1', error: 'INTERNAL_ERROR', err: { type: 'Error', message: 'x', stack: 'Error: x\n    at f (a.ts:1:1)' } });
    expect(prettyFormatter()(line)).toBe('03:04:05.006 ERROR req_1 request failed error=INTERNAL_ERROR\n    Error: x\n        at f (a.ts:1:1)\n');
  });
});
