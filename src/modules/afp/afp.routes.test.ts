/**
 * The AFP routes through a listening app, with the daemon's own link code connected in this
 * process (the built executable is exercised in test/afp.e2e.test.ts), and hand-driven
 * connections for what a well-behaved daemon never does.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDaemon, deviceWithStatus, listen, rawDaemon, waitFor, type TestDaemon } from '../../../test/afp.helpers.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { loadConfig } from '../../config.js';
import { CLOSE, LIMITS } from '../../shared/afp.protocol.js';

let t: TestApp;
let base: string;
let owner: Owner;
let stranger: Owner;
let token: string;
let dir: string;
let root: string;
let daemon: TestDaemon;
const links: TestDaemon[] = [];

const REQUEST_TIMEOUT_MS = 1500;

beforeAll(async () => {
  t = await createTestApp({ config: { afp: { ...loadConfig({}).afp, requestTimeoutMs: REQUEST_TIMEOUT_MS, heartbeatMs: 1000 } } });
  base = await listen(t);
  owner = await t.createOwner('AFP owner');
  stranger = await t.createOwner('AFP stranger');
  token = await t.tokenWithScopes(owner, ['devices']);
  dir = mkdtempSync(path.join(tmpdir(), 'hearth-afp-routes-'));
  root = path.join(dir, 'root');
  mkdirSync(path.join(root, 'docs'), { recursive: true });
  writeFileSync(path.join(dir, 'outside.txt'), 'outside');
  daemon = await connectDaemon(base, { token, name: 'workstation', root, privilege: 'exec' });
  links.push(daemon);
});

afterAll(async () => {
  await Promise.all(links.map((d) => d.link.stop()));
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = (method: 'GET' | 'POST' | 'DELETE', op: string, options: { query?: Record<string, string>; body?: unknown; token?: string; device?: string } = {}) =>
  t.request(method, `/api/v1/afp/${options.device ?? daemon.deviceId}/${op}`, {
    token: options.token ?? token,
    ...(options.query ? { query: options.query } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
  });

/** One request per operation, each valid on its own. */
function everyOperation(file: string): Array<[method: 'GET' | 'POST' | 'DELETE', op: string, options: { query?: Record<string, string>; body?: unknown }]> {
  return [
    ['GET', 'ls', { query: { path: root } }],
    ['GET', 'read', { query: { path: file } }],
    ['POST', 'write', { body: { path: file, content: 'x' } }],
    ['POST', 'exec', { body: { cmd: 'true' } }],
    ['GET', 'stat', { query: { path: file } }],
    ['DELETE', 'rm', { body: { path: file } }],
    ['POST', 'mkdir', { body: { path: path.join(root, 'new-folder') } }],
  ];
}

describe('devices', () => {
  it('lists a connected daemon as online, with its platform, privilege and root', async () => {
    const res = await t.request('GET', '/api/v1/afp/devices', { token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: daemon.deviceId,
        name: 'workstation',
        platform: `${process.platform}-${process.arch}`,
        privilege: 'exec',
        status: 'online',
        lastSeenAt: expect.any(String),
        root: root,
        version: 'test',
        createdAt: expect.any(String),
      },
    ]);
    expect(daemon.deviceId).toMatch(/^dev_[0-9A-Z]{26}$/);
    const one = await t.request('GET', `/api/v1/afp/devices/${daemon.deviceId}`, { token });
    expect(one.body.data).toEqual(res.body.data[0]);
  });

  it("another owner sees none of it: the list is empty and the device's id is 404", async () => {
    const res = await t.request('GET', '/api/v1/afp/devices', { token: stranger.token });
    expect(res.body).toEqual({ data: [] });
    expectError(await t.request('GET', `/api/v1/afp/devices/${daemon.deviceId}`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/afp/devices/${daemon.deviceId}`, { token: stranger.token }), 404, 'NOT_FOUND');
  });

  it('a reconnecting daemon of the same name is the same device; stopped, it shows offline with when it was last seen', async () => {
    const first = await connectDaemon(base, { token, name: 'laptop', root, privilege: 'read' });
    await first.link.stop();
    const offline = await deviceWithStatus(t, token, 'laptop', 'offline');
    expect(offline.id).toBe(first.deviceId);
    const again = await connectDaemon(base, { token, name: 'laptop', root, privilege: 'write', deviceKey: first.deviceKey });
    links.push(again);
    expect(again.deviceId).toBe(first.deviceId);
    const res = await t.request('GET', `/api/v1/afp/devices/${again.deviceId}`, { token });
    expect(res.body.data).toMatchObject({ status: 'online', privilege: 'write' });
  });

  it('the same daemon connecting again (its device key) takes its link over; the older connection is told why and stops', async () => {
    const first = await connectDaemon(base, { token, name: 'twin', root, privilege: 'read' });
    const second = await connectDaemon(base, { token, name: 'twin', root, privilege: 'read', deviceKey: first.deviceKey });
    links.push(second);
    expect(second.deviceId).toBe(first.deviceId);
    const outcome = await first.link.done;
    expect(outcome).toEqual({ final: true, reason: expect.stringContaining('another daemon connected') });
    expect((await t.request('GET', `/api/v1/afp/devices/${second.deviceId}`, { token })).body.data.status).toBe('online');
  });

  it("security: another daemon cannot take a device over, whatever devices token it holds; it is refused (4403), audited, and the device is untouched", async () => {
    const realRoot = path.join(root, 'docs');
    const real = await connectDaemon(base, { token, name: 'guarded', root: realRoot, privilege: 'read' });
    links.push(real);
    const before = (await t.request('GET', `/api/v1/afp/devices/${real.deviceId}`, { token })).body.data;

    // Another devices token of the same owner (an agent's), and the daemon's own token: neither
    // gets in without the device's key, with a wider privilege and another root or not.
    const agentToken = await t.tokenWithScopes(owner, ['devices']);
    for (const intruderToken of [agentToken, token]) {
      const attempt = connectDaemon(base, { token: intruderToken, name: 'guarded', root, privilege: 'exec' });
      await expect(attempt).rejects.toThrow(`device ${real.deviceId} is bound to another daemon's key; remove it to register again, or use another --name`);
    }
    const raw = await rawDaemon(base, agentToken, { name: 'guarded', privilege: 'exec', root: '/' });
    expect(await raw.closed).toEqual({ code: CLOSE.REFUSED, reason: expect.stringContaining('bound to another daemon') });
    expect(raw.frames.find((f) => f.type === 'registered')).toBeUndefined();

    // The real daemon keeps its link, privilege and root, and still answers.
    const after = (await t.request('GET', `/api/v1/afp/devices/${real.deviceId}`, { token })).body.data;
    expect(after).toMatchObject({ status: 'online', privilege: 'read', root: realRoot, createdAt: before.createdAt, platform: before.platform });
    expect((await api('GET', 'ls', { device: real.deviceId, query: { path: realRoot } })).status).toBe(200);
    expectError(await api('POST', 'exec', { device: real.deviceId, body: { cmd: 'true' } }), 403, 'FORBIDDEN');

    const audit = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'afp.device.connect', limit: 50 } });
    const denied = (audit.body.data as Array<{ outcome: string; targetId: string; details: Record<string, unknown> }>).filter((e) => e.targetId === real.deviceId);
    expect(denied).toHaveLength(3);
    for (const entry of denied) expect(entry).toMatchObject({ outcome: 'denied', details: { name: 'guarded', reason: 'device key mismatch', privilege: 'exec' } });
  });

  it('once the owner removes a device, a daemon with a new key registers the name again', async () => {
    const lost = await connectDaemon(base, { token, name: 'reinstalled', root, privilege: 'read' });
    await lost.link.stop();
    await expect(connectDaemon(base, { token, name: 'reinstalled', root, privilege: 'write' })).rejects.toThrow('bound to another daemon');
    expect((await t.request('DELETE', `/api/v1/afp/devices/${lost.deviceId}`, { token: owner.token })).status).toBe(200);
    const fresh = await connectDaemon(base, { token, name: 'reinstalled', root, privilege: 'write' });
    links.push(fresh);
    expect(fresh.deviceId).not.toBe(lost.deviceId);
    expect((await t.request('GET', `/api/v1/afp/devices/${fresh.deviceId}`, { token })).body.data).toMatchObject({ status: 'online', privilege: 'write' });
  });

  it('a devices token cannot remove a device to put its own daemon in its place', async () => {
    const real = await connectDaemon(base, { token, name: 'owner-pc', root, privilege: 'write' });
    links.push(real);
    const agent = await t.tokenWithScopes(owner, ['devices']);
    expectError(await t.request('DELETE', `/api/v1/afp/devices/${real.deviceId}`, { token: agent }), 403, 'FORBIDDEN');
    expectError(await t.request('DELETE', `/api/v1/afp/devices/${real.deviceId}`, { token }), 403, 'FORBIDDEN');
    await expect(connectDaemon(base, { token: agent, name: 'owner-pc', root, privilege: 'exec' })).rejects.toThrow('bound to another daemon');
    expect((await t.request('GET', `/api/v1/afp/devices/${real.deviceId}`, { token })).body.data).toMatchObject({ status: 'online', privilege: 'write' });
    // A login session is the owner too.
    const session = await t.login(owner);
    expect((await t.request('DELETE', `/api/v1/afp/devices/${real.deviceId}`, { token: session })).status).toBe(200);
  });

  it('a device registered before device keys is claimed by no daemon until its owner removes it', async () => {
    const legacy = await connectDaemon(base, { token, name: 'legacy', root, privilege: 'read' });
    await legacy.link.stop();
    await t.storage.db.updateTable('afp_devices').set({ key_hash: null }).where('id', '=', legacy.deviceId).execute();
    for (const deviceKey of [legacy.deviceKey, undefined]) {
      await expect(connectDaemon(base, { token, name: 'legacy', root, privilege: 'exec', ...(deviceKey ? { deviceKey } : {}) })).rejects.toThrow(
        'predates device keys',
      );
    }
    const audit = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'afp.device.connect', limit: 50 } });
    const refused = (audit.body.data as Array<{ outcome: string; targetId: string; details: Record<string, unknown> }>).filter(
      (e) => e.targetId === legacy.deviceId && e.outcome === 'denied',
    );
    expect(refused).toHaveLength(2);
    expect(refused[0]!.details).toMatchObject({ reason: 'device registered before device keys' });
    expect((await t.request('DELETE', `/api/v1/afp/devices/${legacy.deviceId}`, { token: owner.token })).status).toBe(200);
    const fresh = await connectDaemon(base, { token, name: 'legacy', root, privilege: 'read', deviceKey: legacy.deviceKey });
    links.push(fresh);
    expect(fresh.deviceId).not.toBe(legacy.deviceId);
  });

  it('a hello of the previous protocol, without a device key, is told to download the daemon again', async () => {
    const old = await rawDaemon(base, token, { name: 'old-daemon', protocol: 1, key: undefined });
    expect(await old.closed).toEqual({ code: CLOSE.PROTOCOL, reason: expect.stringContaining('download the daemon again') });
    const keyless = await rawDaemon(base, token, { name: 'old-daemon', key: undefined });
    expect(await keyless.closed).toEqual({ code: CLOSE.PROTOCOL, reason: 'hello carries no device key: download the daemon again' });
  });

  it('DELETE forgets the device and closes its connection; the daemon stops', async () => {
    const doomed = await connectDaemon(base, { token, name: 'old-pc', root, privilege: 'read' });
    const res = await t.request('DELETE', `/api/v1/afp/devices/${doomed.deviceId}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: doomed.deviceId, name: 'old-pc', status: 'online' });
    expect(await doomed.link.done).toEqual({ final: true, reason: 'the owner removed this device' });
    const list = await t.request('GET', '/api/v1/afp/devices', { token });
    expect(list.body.data.map((d: { name: string }) => d.name)).not.toContain('old-pc');
    expectError(await t.request('DELETE', `/api/v1/afp/devices/${doomed.deviceId}`, { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await api('GET', 'stat', { device: doomed.deviceId, query: { path: root } }), 404, 'NOT_FOUND');
  });
});

describe('operations', () => {
  it('write, read, ls, stat, mkdir, rm and exec answer their shapes', async () => {
    const file = path.join(root, 'docs', 'hello.txt');
    const written = await api('POST', 'write', { body: { path: file, content: 'hello\n' } });
    expect(written.status).toBe(200);
    expect(written.body).toEqual({ data: { path: file, size: 6, created: true } });

    expect((await api('GET', 'read', { query: { path: file } })).body).toEqual({ data: { path: file, content: 'hello\n', encoding: 'utf8', size: 6 } });

    const listing = await api('GET', 'ls', { query: { path: path.join(root, 'docs') } });
    expect(listing.body).toEqual({
      data: { path: path.join(root, 'docs'), entries: [{ name: 'hello.txt', type: 'file', size: 6, modifiedAt: expect.any(String) }], truncated: false },
    });

    const stat = await api('GET', 'stat', { query: { path: file } });
    expect(stat.body).toEqual({ data: { path: file, type: 'file', size: 6, modifiedAt: expect.any(String), mode: expect.stringMatching(/^0[0-7]{3}$/) } });

    const folder = path.join(root, 'made', 'deep');
    expect((await api('POST', 'mkdir', { body: { path: folder } })).body).toEqual({ data: { path: folder, created: true } });
    expect((await api('DELETE', 'rm', { body: { path: path.join(root, 'made'), recursive: true } })).body).toEqual({
      data: { path: path.join(root, 'made'), type: 'directory', deleted: true },
    });

    const ran = await api('POST', 'exec', { body: { cmd: 'cat docs/hello.txt; echo err >&2' } });
    expect(ran.status).toBe(200);
    expect(ran.body).toEqual({ data: { stdout: 'hello\n', stderr: 'err\n', exitCode: 0, signal: null, truncated: false, durationMs: expect.any(Number) } });
  });

  it('binary content travels as base64 both ways', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]);
    const file = path.join(root, 'image.png');
    await api('POST', 'write', { body: { path: file, content: bytes.toString('base64'), encoding: 'base64' } });
    expect((await api('GET', 'read', { query: { path: file } })).body.data).toMatchObject({ content: bytes.toString('base64'), encoding: 'base64', size: 7 });
  });

  it("the daemon's refusals keep their meaning: 403, 404, 409, 400", async () => {
    const outside = expectError(await api('GET', 'read', { query: { path: path.join(dir, 'outside.txt') } }), 403, 'FORBIDDEN');
    expect(outside.message).toContain('outside the folder');
    expectError(await api('GET', 'read', { query: { path: `${root}/../outside.txt` } }), 403, 'FORBIDDEN');
    expectError(await api('DELETE', 'rm', { body: { path: root, recursive: true } }), 403, 'FORBIDDEN');
    expectError(await api('GET', 'stat', { query: { path: path.join(root, 'nope.txt') } }), 404, 'NOT_FOUND');
    writeFileSync(path.join(root, 'docs', 'keep.txt'), 'keep');
    expectError(await api('DELETE', 'rm', { body: { path: path.join(root, 'docs') } }), 409, 'CONFLICT');
    expectError(await api('GET', 'ls', { query: { path: path.join(root, 'docs', 'keep.txt') } }), 400, 'VALIDATION_ERROR');
  });

  it('a daemon below the privilege an operation needs refuses it with 403 and says why', async () => {
    const reader = await connectDaemon(base, { token, name: 'reader', root, privilege: 'read' });
    links.push(reader);
    const refused = expectError(
      await api('POST', 'write', { device: reader.deviceId, body: { path: path.join(root, 'x.txt'), content: 'x' } }),
      403,
      'FORBIDDEN',
    );
    expect(refused.message).toContain('privilege "read"');
    expectError(await api('POST', 'exec', { device: reader.deviceId, body: { cmd: 'true' } }), 403, 'FORBIDDEN');
    expect((await api('GET', 'stat', { device: reader.deviceId, query: { path: root } })).status).toBe(200);
  });

  it('every write, rm, mkdir and exec is in the audit log with its path or command, never the content', async () => {
    const file = path.join(root, 'audited.txt');
    await api('POST', 'write', { body: { path: file, content: 'the secret content' } });
    await api('POST', 'mkdir', { body: { path: path.join(root, 'audited-dir') } });
    await api('DELETE', 'rm', { body: { path: file } });
    await api('POST', 'exec', { body: { cmd: 'echo audited' } });
    const res = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: 'afp.*', limit: 200 } });
    const entries = res.body.data as Array<{ action: string; outcome: string; targetId: string; details: Record<string, unknown> }>;
    const find = (action: string, match: (d: Record<string, unknown>) => boolean) => entries.find((e) => e.action === action && match(e.details));
    expect(find('afp.write', (d) => d.path === file)).toMatchObject({ outcome: 'success', targetId: daemon.deviceId, details: { bytes: 18 } });
    expect(find('afp.mkdir', (d) => d.path === path.join(root, 'audited-dir'))).toMatchObject({ outcome: 'success' });
    expect(find('afp.rm', (d) => d.path === file)).toMatchObject({ outcome: 'success' });
    expect(find('afp.exec', (d) => d.cmd === 'echo audited')).toMatchObject({ outcome: 'success', details: { exitCode: 0 } });
    expect(find('afp.rm', (d) => d.path === root)).toMatchObject({ outcome: 'denied' });
    expect(JSON.stringify(entries)).not.toContain('the secret content');
  });
});

describe('validation', () => {
  it('path is required and must be absolute', async () => {
    expectError(await api('GET', 'ls'), 400, 'VALIDATION_ERROR');
    const relative = expectError(await api('GET', 'stat', { query: { path: 'docs/hello.txt' } }), 400, 'VALIDATION_ERROR');
    expect(relative.message).toContain('absolute');
    expectError(await api('POST', 'write', { body: { path: 'x.txt', content: 'x' } }), 400, 'VALIDATION_ERROR');
    expectError(await api('POST', 'exec', { body: { cmd: 'true', cwd: 'docs' } }), 400, 'VALIDATION_ERROR');
    // Windows paths are absolute too; this Linux daemon then refuses it as outside its root.
    expectError(await api('GET', 'stat', { query: { path: 'C:\\Users' } }), 400, 'VALIDATION_ERROR');
  });

  it('names the refused path by the part of the request that carried it', async () => {
    // The service checks `path` and `cwd`; each route places them where its client sent them.
    const query = expectError(await api('GET', 'ls', { query: { path: 'docs' } }), 400, 'VALIDATION_ERROR');
    expect(query.details).toEqual([{ field: 'querystring.path', message: 'must be absolute' }]);
    const body = expectError(await api('POST', 'mkdir', { body: { path: 'docs' } }), 400, 'VALIDATION_ERROR');
    expect(body.details).toEqual([{ field: 'body.path', message: 'must be absolute' }]);
    const cwd = expectError(await api('POST', 'exec', { body: { cmd: 'true', cwd: 'docs' } }), 400, 'VALIDATION_ERROR');
    expect(cwd.details).toEqual([{ field: 'body.cwd', message: 'must be absolute' }]);
  });

  it('exec timeout is 1 to 60000 ms', async () => {
    const over = expectError(await api('POST', 'exec', { body: { cmd: 'true', timeout: 60_001 } }), 400, 'VALIDATION_ERROR');
    expect(over.details).toEqual([{ field: 'body.timeout', message: 'must be at most 60000' }]);
    expectError(await api('POST', 'exec', { body: { cmd: 'true', timeout: 0 } }), 400, 'VALIDATION_ERROR');
    expectError(await api('POST', 'exec', { body: {} }), 400, 'VALIDATION_ERROR');
  });

  it('bodies refuse unknown fields and bad encodings', async () => {
    expectError(await api('POST', 'write', { body: { path: path.join(root, 'a'), content: 'x', mode: '0777' } }), 400, 'VALIDATION_ERROR');
    expectError(await api('POST', 'write', { body: { path: path.join(root, 'a'), content: 'x', encoding: 'hex' } }), 400, 'VALIDATION_ERROR');
    expectError(await api('DELETE', 'rm', {}), 400, 'VALIDATION_ERROR');
  });

  it('write content over 10 MiB is 413', async () => {
    const res = await api('POST', 'write', { body: { path: path.join(root, 'big.txt'), content: 'x'.repeat(LIMITS.maxFileBytes + 1) } });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('unknown, foreign and offline devices', () => {
  it('an unknown device id is 404 for every operation', async () => {
    for (const [method, op, options] of everyOperation(path.join(root, 'f.txt'))) {
      expectError(await api(method, op, { ...options, device: 'dev_01J0000000000000000000000' }), 404, 'NOT_FOUND');
    }
  });

  it("another owner's device is 404 for every operation, exactly like an unknown one", async () => {
    const strangerToken = await t.tokenWithScopes(stranger, ['devices']);
    for (const [method, op, options] of everyOperation(path.join(root, 'f.txt'))) {
      const res = expectError(await api(method, op, { ...options, token: strangerToken }), 404, 'NOT_FOUND');
      expect(res.message).toBe(`Device ${daemon.deviceId} not found`);
    }
  });

  it('a registered device whose daemon is gone is 503 DEVICE_OFFLINE for every operation', async () => {
    const gone = await connectDaemon(base, { token, name: 'gone', root, privilege: 'exec' });
    await gone.link.stop();
    await deviceWithStatus(t, token, 'gone', 'offline');
    for (const [method, op, options] of everyOperation(path.join(root, 'f.txt'))) {
      const res = expectError(await api(method, op, { ...options, device: gone.deviceId }), 503, 'DEVICE_OFFLINE');
      expect(res.message).toContain('offline');
    }
  });
});

describe('the relay', () => {
  it('a daemon that does not answer makes the request 504 DEVICE_TIMEOUT after the request timeout', async () => {
    const mute = await rawDaemon(base, token, { name: 'mute' });
    const { deviceId } = await mute.next('registered');
    const started = Date.now();
    expectError(await api('GET', 'stat', { device: deviceId, query: { path: '/nowhere' } }), 504, 'DEVICE_TIMEOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    mute.ws.close();
  });

  it(`a device runs at most ${LIMITS.maxConcurrentRequests} requests at once; more answer 429 with Retry-After`, async () => {
    const mute = await rawDaemon(base, token, { name: 'busy' });
    const { deviceId } = await mute.next('registered');
    const hanging = Array.from({ length: LIMITS.maxConcurrentRequests }, () => api('GET', 'stat', { device: deviceId, query: { path: '/nowhere' } }));
    await waitFor(() => mute.frames.filter((f) => f.type === 'request').length === LIMITS.maxConcurrentRequests, 'the requests to reach the daemon');
    const over = await api('GET', 'stat', { device: deviceId, query: { path: '/nowhere' } });
    expectError(over, 429, 'RATE_LIMITED');
    expect(over.headers['retry-after']).toBe('1');
    // The daemon answers one: its request completes with what the daemon said.
    const first = mute.frames.find((f) => f.type === 'request');
    mute.ws.send(JSON.stringify({ type: 'response', id: first.id, ok: false, error: { code: 'NOT_FOUND', message: 'No such file or folder: /nowhere' } }));
    mute.ws.close();
    const answers = await Promise.all(hanging);
    expect(answers.map((r) => r.status).sort()).toEqual([404, ...Array(LIMITS.maxConcurrentRequests - 1).fill(503)]);
  });

  it('a malformed result from a daemon is 502, not passed on', async () => {
    const liar = await rawDaemon(base, token, { name: 'liar' });
    const { deviceId } = await liar.next('registered');
    const pending = api('GET', 'stat', { device: deviceId, query: { path: '/x' } });
    const request = await liar.next('request');
    expect(request).toEqual({ type: 'request', id: expect.any(String), op: 'stat', args: { path: '/x' } });
    liar.ws.send(JSON.stringify({ type: 'response', id: request.id, ok: true, result: { path: '/x', size: 'big' } }));
    expectError(await pending, 502, 'UPSTREAM_ERROR');
    liar.ws.close();
  });
});

describe('the daemon link', () => {
  it('GET /afp/connect without a WebSocket upgrade is 400', async () => {
    const res = expectError(await t.request('GET', '/api/v1/afp/connect', { token }), 400, 'VALIDATION_ERROR');
    expect(res.message).toContain('WebSocket');
  });

  it('an upgrade without a token, or with a token lacking devices, is refused, its socket closed, and the daemon stops for good', async () => {
    const connections = () => new Promise<number>((resolve, reject) => t.app.server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
    const before = await connections();
    const memoryOnly = await t.tokenWithScopes(owner, ['memory']);
    for (const [bad, status] of [
      ['hth_pat_not-a-real-token', 401],
      [memoryOnly, 403],
    ] as const) {
      const attempt = connectDaemon(base, { token: bad, name: 'intruder', root, privilege: 'read' });
      await expect(attempt).rejects.toThrow(`the server answered ${status}`);
    }
    await waitFor(async () => (await connections()) <= before, 'the refused sockets to close');
  });

  it('an upgrade to a route that takes no WebSocket, to no route or to a malformed path is answered over HTTP and its socket closed', async () => {
    const connections = () => new Promise<number>((resolve, reject) => t.app.server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
    const before = await connections();
    for (const [route, status] of [
      ['/api/v1/health', 200],
      ['/api/v1/no-such-route', 404],
      ['/api/v1/memory', 401],
      // Malformed: refused before routing, by the framework's own error path.
      ['/api/v1/skills/%zz', 400],
    ] as const) {
      const answer = await new Promise<{ status: number; ended: boolean }>((resolve, reject) => {
        const req = httpRequest(`${base}${route}`, {
          headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
        });
        req.on('upgrade', () => reject(new Error(`${route} was upgraded`)));
        req.on('response', (res) => {
          res.resume();
          // The server ends the socket: the client sees it close without closing it itself.
          res.socket.once('close', () => resolve({ status: res.statusCode ?? 0, ended: true }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer).toEqual({ status, ended: true });
    }
    await waitFor(async () => (await connections()) <= before, 'the answered upgrade sockets to close');
  });

  it('the first frame must be a hello of this protocol version', async () => {
    const early = await rawDaemon(base, token, null);
    early.ws.send(JSON.stringify({ type: 'heartbeat' }));
    expect((await early.closed).code).toBe(CLOSE.PROTOCOL);
    const future = await rawDaemon(base, token, { name: 'future', protocol: 99 });
    expect(await future.closed).toEqual({ code: CLOSE.PROTOCOL, reason: expect.stringContaining('download the daemon again') });
    const garbage = await rawDaemon(base, token, { name: 'bad\u0001name' });
    expect((await garbage.closed).code).toBe(CLOSE.PROTOCOL);
  });

  it('heartbeats are answered', async () => {
    const beating = await rawDaemon(base, token, { name: 'beating' });
    await beating.next('registered');
    beating.ws.send(JSON.stringify({ type: 'heartbeat' }));
    await beating.next('heartbeat');
    beating.ws.close();
  });

  it('revoking the token ends the link within a heartbeat, and the daemon stops for good', async () => {
    const res = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'short-lived', scopes: ['devices'] } });
    const revocable = await connectDaemon(base, { token: res.body.data.token, name: 'revocable', root, privilege: 'read' });
    await t.request('DELETE', `/api/v1/tokens/${res.body.data.id}`, { token: owner.token });
    expect(await revocable.link.done).toEqual({ final: true, reason: expect.stringContaining('revoked') });
    await deviceWithStatus(t, token, 'revocable', 'offline');
  });

  it('a node shutting down hands its links back: each daemon reconnects (here, to the same server) and is served again', async () => {
    const handed = await connectDaemon(base, { token, name: 'handed-back', root, privilege: 'read' });
    links.push(handed);
    const again = handed.link.registered();
    await t.container.afpRelay.closeAll(CLOSE.GOING_AWAY, 'this server node is shutting down; connect again');
    expect(await again).toBe(handed.deviceId);
    await deviceWithStatus(t, token, 'handed-back', 'online');
    expect((await api('GET', 'stat', { device: handed.deviceId, query: { path: root } })).status).toBe(200);
  });
});

describe('plan limits', () => {
  it("a device beyond the owner's plan is refused at registration; the daemon is told why and stops", async () => {
    const limited = await createTestApp({ config: { planLimits: true } });
    try {
      const limitedBase = await listen(limited);
      await limited.createOwner('Administrator, never limited');
      const user = await limited.createOwner('Free plan');
      const userToken = await limited.tokenWithScopes(user, ['devices']);
      const first = await connectDaemon(limitedBase, { token: userToken, name: 'only-pc', root, privilege: 'read' });
      await expect(connectDaemon(limitedBase, { token: userToken, name: 'second-pc', root, privilege: 'read' })).rejects.toThrow('Plan limit reached: devices');
      // The device already registered reconnects: it is not a new one.
      await first.link.stop();
      const again = await connectDaemon(limitedBase, { token: userToken, name: 'only-pc', root, privilege: 'read', deviceKey: first.deviceKey });
      expect(again.deviceId).toBe(first.deviceId);
      await again.link.stop();
    } finally {
      await limited.close();
    }
  });
});

describe('downloads', () => {
  it('an unknown platform is 400, naming the ones there are', async () => {
    const res = expectError(await t.request('GET', '/api/v1/afp/download/solaris'), 400, 'VALIDATION_ERROR');
    expect(res.details).toEqual([{ field: 'params.platform', message: 'must be one of: linux, mac, mac-arm, win' }]);
  });

  it('security: the public download route is limited to 30 requests a minute per address', async () => {
    const get = (remoteAddress: string) => t.app.inject({ method: 'GET', url: '/api/v1/afp/download/solaris', remoteAddress });
    for (let i = 0; i < 30; i++) expect((await get('203.0.113.50')).statusCode).toBe(400);
    const limited = await get('203.0.113.50');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await get('203.0.113.51')).statusCode).toBe(400);
  });
});
