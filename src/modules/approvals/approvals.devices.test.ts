/**
 * Approvals of device operations, run to the end: a daemon's own link code connected to a
 * listening app (as src/modules/afp/afp.routes.test.ts does), each device class under `ask`,
 * nothing touched on disk before approval, and after it the operation done exactly once, its
 * answer readable by the requesting token alone.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDaemon, listen, type TestDaemon } from '../../../test/afp.helpers.js';
import { approveAndRead, expectHeld, outsiders, policyToken } from '../../../test/approvals.helpers.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';

let t: TestApp;
let owner: Owner;
let dir: string;
let root: string;
let daemon: TestDaemon;
let requester: { token: string; id: string };
let others: string[];

beforeAll(async () => {
  t = await createTestApp();
  const base = await listen(t);
  owner = await t.createOwner('Device approvals owner');
  dir = mkdtempSync(path.join(tmpdir(), 'hearth-approvals-devices-'));
  root = path.join(dir, 'root');
  mkdirSync(root, { recursive: true });
  daemon = await connectDaemon(base, { token: await t.tokenWithScopes(owner, ['devices']), name: 'approvals-pc', root, privilege: 'exec' });
  requester = await policyToken(t, owner, ['devices'], { 'devices.exec': 'ask', 'devices.write': 'ask', 'devices.delete': 'ask' });
  others = await outsiders(t, owner, ['devices']);
});

afterAll(async () => {
  await daemon?.link.stop();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const op = (method: 'POST' | 'DELETE', name: string, body: unknown) => t.request(method, `/api/v1/afp/${daemon.deviceId}/${name}`, { token: requester.token, body });

/** How often the device ran `op` for the requesting token, from the audit log (every changing operation is audited). */
async function ranTimes(name: string): Promise<number> {
  const res = await t.request('GET', '/api/v1/audit/log', { token: owner.token, query: { action: `afp.${name}`, tokenId: requester.id, limit: 100 } });
  expect(res.status, res.text).toBe(200);
  return res.body.data.filter((e: any) => e.outcome === 'success').length;
}

describe('device classes under ask', () => {
  it('devices.exec: the command runs once, after approval, and its output is the requesting token’s to read', async () => {
    const log = path.join(root, 'ran.log');
    // Each run of the command appends a line: the file's lines count the runs.
    const approvalId = expectHeld(await op('POST', 'exec', { cmd: 'echo run >> ran.log; echo hi', cwd: root }));
    expect(existsSync(log)).toBe(false);
    expect(await ranTimes('exec')).toBe(0);
    const view = (await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: owner.token })).body.data;
    expect(view).toMatchObject({ status: 'pending', actionClass: 'devices.exec' });
    expect(view.description).toContain('echo run >> ran.log; echo hi');

    const answer = await approveAndRead(t, approvalId, { owner, requester: requester.token, others });
    expect(answer.data).toMatchObject({ stdout: 'hi\n', stderr: '', exitCode: 0 });
    expect(readFileSync(log, 'utf8')).toBe('run\n');
    expect(await ranTimes('exec')).toBe(1);
  });

  it('devices.write (write): the file is written once, after approval', async () => {
    const file = path.join(root, 'notes.txt');
    const approvalId = expectHeld(await op('POST', 'write', { path: file, content: 'approved text\n' }));
    expect(existsSync(file)).toBe(false);
    expect((await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: owner.token })).body.data.actionClass).toBe('devices.write');

    const answer = await approveAndRead(t, approvalId, { owner, requester: requester.token, others });
    expect(answer.data).toEqual({ path: file, size: 14, created: true });
    expect(readFileSync(file, 'utf8')).toBe('approved text\n');
    expect(await ranTimes('write')).toBe(1);
  });

  it('devices.write (mkdir): the folder is made once, after approval', async () => {
    const folder = path.join(root, 'made', 'deep');
    const approvalId = expectHeld(await op('POST', 'mkdir', { path: folder, recursive: true }));
    expect(existsSync(path.join(root, 'made'))).toBe(false);
    expect((await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: owner.token })).body.data.actionClass).toBe('devices.write');

    const answer = await approveAndRead(t, approvalId, { owner, requester: requester.token, others });
    expect(answer.data).toEqual({ path: folder, created: true });
    expect(statSync(folder).isDirectory()).toBe(true);
    expect(await ranTimes('mkdir')).toBe(1);
  });

  it('devices.delete (rm): the file is removed once, after approval, whatever the number of concurrent approvals', async () => {
    const file = path.join(root, 'doomed.txt');
    writeFileSync(file, 'to be removed');
    const approvalId = expectHeld(await op('DELETE', 'rm', { path: file }));
    expect(readFileSync(file, 'utf8')).toBe('to be removed');
    expect((await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: owner.token })).body.data.actionClass).toBe('devices.delete');

    // Two approvals at once, by a session and by the master token: one runs it, the other is refused.
    const session = await t.login(owner);
    const results = await Promise.all([session, owner.token].map((token) => t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token })));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(1);
    expect(winners[0]!.body.data).toMatchObject({ status: 'executed', resultStatus: 200 });
    expect(existsSync(file)).toBe(false);

    const mine = (await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: requester.token })).body.data;
    expect(mine.result).toEqual({ status: 200, body: { data: { path: file, type: 'file', deleted: true } } });
    for (const other of others) expectError(await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: other }), 404, 'NOT_FOUND');
    expect(await ranTimes('rm')).toBe(1);
  });
});

describe('what the owner is shown is what runs', () => {
  const view = async (approvalId: string, token = owner.token) => (await t.request('GET', `/api/v1/approvals/${approvalId}`, { token })).body.data;
  const fieldOf = (data: any, name: string) => data.request.fields.find((f: any) => f.name === name);

  it('rm: a path in the query next to another in the body is refused, and the description names the body’s path and recursive', async () => {
    const harmless = path.join(root, 'harmless.tmp');
    const important = path.join(root, 'important');
    writeFileSync(harmless, 'scratch');
    mkdirSync(important, { recursive: true });
    writeFileSync(path.join(important, 'keep.txt'), 'precious');

    // The review's attack: the query said one path, the body (which the route reads) another.
    const url = `/api/v1/afp/${daemon.deviceId}/rm?path=${encodeURIComponent(harmless)}`;
    const refused = expectError(await t.request('DELETE', url, { token: requester.token, body: { path: important, recursive: true } }), 400, 'VALIDATION_ERROR');
    expect(refused.message).toContain('`path`');
    expect(refused.details).toEqual([{ field: 'querystring.path', message: 'is not a parameter of this route' }]);
    // Refused for every caller, not only held ones: the route never reads the query.
    expectError(await t.request('DELETE', url, { token: owner.token, body: { path: important, recursive: true } }), 400, 'VALIDATION_ERROR');
    expect(existsSync(path.join(important, 'keep.txt'))).toBe(true);

    const approvalId = expectHeld(await op('DELETE', 'rm', { path: important, recursive: true }));
    const data = await view(approvalId);
    expect(data.description).toBe(`test devices wants to delete \`${important}\` on device ${daemon.deviceId}, and everything in it if it is a folder (recursive)`);
    expect(data.request).toEqual({
      method: 'DELETE',
      path: `/api/v1/afp/${daemon.deviceId}/rm`,
      bodyStatus: 'held',
      omittedFields: 0,
      fields: [
        { name: 'path', type: 'string', value: important, truncated: false, length: important.length, bytes: null, secret: false },
        { name: 'recursive', type: 'boolean', value: true, truncated: false, length: null, bytes: null, secret: false },
      ],
    });
    await t.request('POST', `/api/v1/approvals/${approvalId}/deny`, { token: owner.token });
    expect(existsSync(path.join(important, 'keep.txt'))).toBe(true);
  });

  it('exec: padding and control characters are written out, the whole command is named with its folder and timeout, and that command runs', async () => {
    const cmd = `echo safe${' '.repeat(200)}; echo ran > padded.log\n\u202eecho hidden`;
    const approvalId = expectHeld(await op('POST', 'exec', { cmd, cwd: root, timeout: 5000 }));
    const data = await view(approvalId);
    expect(data.description).toBe(
      `test devices wants to run \`echo safe␠×200; echo ran > padded.log\\n\\u{202e}echo hidden\` on device ${daemon.deviceId}, in the folder \`${root}\`, stopped after 5,000 ms`,
    );
    expect(fieldOf(data, 'cmd')).toMatchObject({ value: cmd, truncated: false, length: cmd.length });
    expect(fieldOf(data, 'cwd')).toMatchObject({ value: root });
    expect(fieldOf(data, 'timeout')).toMatchObject({ type: 'number', value: 5000 });
    // The token that asked reads the approval, not the request it sent.
    expect((await view(approvalId, requester.token)).request).toBeNull();

    const answer = await approveAndRead(t, approvalId, { owner, requester: requester.token, others });
    // Exactly that command ran: its first two parts, and the third (no such program) failed.
    expect(answer.data).toMatchObject({ stdout: 'safe\n', exitCode: 127 });
    expect(readFileSync(path.join(root, 'padded.log'), 'utf8')).toBe('ran\n');
    // Once decided, the body is dropped: the request shows its method and path only.
    expect((await view(approvalId)).request).toMatchObject({ method: 'POST', path: `/api/v1/afp/${daemon.deviceId}/exec`, bodyStatus: 'dropped', fields: [] });
  });

  it('exec: a command too long for one line is cut visibly, and the default timeout is named', async () => {
    const cmd = `echo ${'a'.repeat(2_440)}; echo tail`;
    const approvalId = expectHeld(await op('POST', 'exec', { cmd }));
    const data = await view(approvalId);
    expect(data.description).toMatch(/^test devices wants to run `echo a+`… \(2,156 more characters; open the request to see all\) on device \S+, in the device's root folder, stopped after 30,000 ms$/);
    expect(fieldOf(data, 'cmd')).toMatchObject({ value: cmd, truncated: false });
    await t.request('POST', `/api/v1/approvals/${approvalId}/deny`, { token: owner.token });
  });

  it('write: the content is shown as its size and a preview', async () => {
    const file = path.join(root, 'big.txt');
    const content = `${'x'.repeat(10_000)}end`;
    const approvalId = expectHeld(await op('POST', 'write', { path: file, content: Buffer.from(content).toString('base64'), encoding: 'base64' }));
    const data = await view(approvalId);
    expect(data.description).toBe(`test devices wants to write 10,003 bytes (sent as base64) to the file \`${file}\` on device ${daemon.deviceId}, replacing it if it exists`);
    const field = fieldOf(data, 'content');
    expect(field).toMatchObject({ type: 'string', truncated: true, bytes: 10_003, length: Buffer.from(content).toString('base64').length });
    expect(field.value).toHaveLength(500);
    expect(fieldOf(data, 'encoding')).toMatchObject({ value: 'base64' });
    await t.request('POST', `/api/v1/approvals/${approvalId}/deny`, { token: owner.token });
    expect(existsSync(file)).toBe(false);
  });
});
