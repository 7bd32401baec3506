/**
 * End to end: a real listening server, the linux daemon downloaded through
 * GET /api/v1/afp/download/linux, run as separate processes against it, and every operation
 * through the relay: results, privilege refusals, root escapes, a slow command's 504 with its
 * process tree ended, reconnection after a server restart, and 503 once the daemon is killed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { chmod, open } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceWithStatus, listen, waitFor } from './afp.helpers.js';
import { killSurvivors, namespacesAvailable, survivors, uniqueSleep } from './procfs.js';
import { createTestApp, expectError, type Owner, type TestApp } from './harness.js';

let t: TestApp;
let owner: Owner;
let base: string;
let token: string;
let dir: string;
let root: string;
let outside: string;
let executable: string;
let download: Response;
const daemons: Array<{ child: ChildProcess; output: () => string }> = [];
let execDevice: string;
let readDevice: string;

/** Starts the downloaded daemon as its own process; its log is kept for failure messages. */
function startDaemon(args: string[], env: Record<string, string> = {}) {
  // The daemon's environment is the test's, without any HEARTH_AFP_ setting of the machine.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('HEARTH_AFP_')));
  const child = spawn(executable, args, { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (chunk) => (log += chunk));
  child.stderr!.on('data', (chunk) => (log += chunk));
  const entry = { child, output: () => log };
  daemons.push(entry);
  return entry;
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

const op = (method: 'GET' | 'POST' | 'DELETE', device: string, name: string, options: { query?: Record<string, string>; body?: unknown } = {}) =>
  t.request(method, `/api/v1/afp/${device}/${name}`, { token, ...options });

beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t);
  owner = await t.createOwner('E2E owner');
  token = await t.tokenWithScopes(owner, ['devices']);

  dir = mkdtempSync(path.join(tmpdir(), 'hearth-afp-e2e-'));
  root = path.join(dir, 'root');
  outside = path.join(dir, 'outside');
  mkdirSync(path.join(root, 'docs'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  symlinkSync(outside, path.join(root, 'escape'));

  // The first download builds the executable (cached afterwards): allow for it.
  download = await fetch(`${base}/api/v1/afp/download/linux`);
  executable = path.join(dir, 'hearth-afp-linux');
  await pipeline(Readable.fromWeb(download.body! as import('node:stream/web').ReadableStream), createWriteStream(executable));
  await chmod(executable, 0o755);

  // One daemon takes its token from the environment, the other from a config file.
  const exec = startDaemon(['--server', base, '--root', root, '--privilege', 'exec', '--name', 'e2e-exec'], {
    HEARTH_AFP_TOKEN: token,
    HEARTH_AFP_KEY_FILE: path.join(dir, 'exec.key'),
  });
  const configFile = path.join(dir, 'afp.json');
  writeFileSync(configFile, JSON.stringify({ server: base, token, root, privilege: 'read', name: 'e2e-read', keyFile: path.join(dir, 'read.key') }), {
    mode: 0o600,
  });
  const read = startDaemon(['--config', configFile]);
  try {
    execDevice = (await deviceWithStatus(t, token, 'e2e-exec', 'online', 20_000)).id;
    readDevice = (await deviceWithStatus(t, token, 'e2e-read', 'online', 20_000)).id;
  } catch (error) {
    throw new Error(`${(error as Error).message}\nexec daemon: ${exec.output()}\nread daemon: ${read.output()}`);
  }
}, 180_000);

afterAll(async () => {
  for (const { child } of daemons) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the download', () => {
  it('is a Linux x86-64 executable served as an attachment', async () => {
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="hearth-afp-linux"');
    const handle = await open(executable, 'r');
    const header = Buffer.alloc(20);
    await handle.read(header, 0, 20, 0);
    const { size } = await handle.stat();
    await handle.close();
    expect(Number(download.headers.get('content-length'))).toBe(size);
    expect(header.subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46])); // ELF
    expect(header.readUInt16LE(18)).toBe(0x3e); // x86-64
  });

  it('explains itself with --help, without Node installed beside it', () => {
    const help = spawnSync(executable, ['--help'], { env: { PATH: '/nonexistent' }, encoding: 'utf8' });
    expect(help.status).toBe(0);
    for (const flag of ['--server', '--token', '--name', '--root', '--privilege', '--config', 'HEARTH_AFP_TOKEN']) expect(help.stdout).toContain(flag);
    const bad = spawnSync(executable, ['--server', base, '--token', 'x', '--privilege', 'root'], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('--privilege must be one of read, write, exec');
  });
});

describe('operations through the relay', () => {
  it('lists both daemons with their platform and privilege', async () => {
    const res = await t.request('GET', '/api/v1/afp/devices', { token });
    const byName = Object.fromEntries(res.body.data.map((d: { name: string }) => [d.name, d]));
    expect(byName['e2e-exec']).toMatchObject({ platform: 'linux-x64', privilege: 'exec', status: 'online', root });
    expect(byName['e2e-read']).toMatchObject({ platform: 'linux-x64', privilege: 'read', status: 'online', root });
  });

  it('write, read, ls, stat, mkdir, rm and exec', async () => {
    const file = path.join(root, 'docs', 'todo.md');
    expect((await op('POST', execDevice, 'write', { body: { path: file, content: '# Todo\n- ship\n' } })).body.data).toEqual({ path: file, size: 14, created: true });
    expect(readFileSync(file, 'utf8')).toBe('# Todo\n- ship\n');
    expect((await op('GET', execDevice, 'read', { query: { path: file } })).body.data).toEqual({ path: file, content: '# Todo\n- ship\n', encoding: 'utf8', size: 14 });

    const bytes = Buffer.from([0, 159, 146, 150, 255]);
    const blob = path.join(root, 'docs', 'blob.bin');
    await op('POST', execDevice, 'write', { body: { path: blob, content: bytes.toString('base64'), encoding: 'base64' } });
    expect(readFileSync(blob)).toEqual(bytes);
    expect((await op('GET', readDevice, 'read', { query: { path: blob } })).body.data).toMatchObject({ content: bytes.toString('base64'), encoding: 'base64' });

    const listing = (await op('GET', readDevice, 'ls', { query: { path: path.join(root, 'docs') } })).body.data;
    expect(listing.entries.map((e: { name: string; type: string }) => [e.name, e.type])).toEqual([
      ['blob.bin', 'file'],
      ['todo.md', 'file'],
    ]);
    expect((await op('GET', readDevice, 'stat', { query: { path: path.join(root, 'docs') } })).body.data).toMatchObject({ type: 'directory' });

    const folder = path.join(root, 'projects', 'hearth');
    expect((await op('POST', execDevice, 'mkdir', { body: { path: folder } })).body.data).toEqual({ path: folder, created: true });
    const ran = await op('POST', execDevice, 'exec', { body: { cmd: 'ls docs && echo to-stderr >&2 && exit 7' } });
    expect(ran.status).toBe(200);
    expect(ran.body.data).toMatchObject({ stdout: 'blob.bin\ntodo.md\n', stderr: 'to-stderr\n', exitCode: 7 });
    expect((await op('POST', execDevice, 'exec', { body: { cmd: 'pwd', cwd: folder } })).body.data.stdout).toBe(`${folder}\n`);
    expect((await op('DELETE', execDevice, 'rm', { body: { path: path.join(root, 'projects'), recursive: true } })).body.data).toEqual({
      path: path.join(root, 'projects'),
      type: 'directory',
      deleted: true,
    });
    expectError(await op('GET', execDevice, 'stat', { query: { path: folder } }), 404, 'NOT_FOUND');
  });

  it('a read-only daemon refuses write, mkdir, rm and exec with 403, and changes nothing', async () => {
    const file = path.join(root, 'docs', 'todo.md');
    for (const [method, name, body] of [
      ['POST', 'write', { path: file, content: 'overwritten' }],
      ['POST', 'mkdir', { path: path.join(root, 'nope') }],
      ['DELETE', 'rm', { path: file }],
      ['POST', 'exec', { cmd: 'touch pwned' }],
    ] as const) {
      const refused = expectError(await op(method, readDevice, name, { body }), 403, 'FORBIDDEN');
      expect(refused.message).toContain('privilege "read"');
    }
    expect(readFileSync(file, 'utf8')).toBe('# Todo\n- ship\n');
  });

  it('refuses escapes from the root: .., absolute paths, a symbolic link pointing out, and the root itself', async () => {
    const escapes = [path.join(root, '..', 'outside', 'secret.txt'), path.join(outside, 'secret.txt'), path.join(root, 'escape', 'secret.txt'), '/etc/passwd'];
    for (const target of escapes) {
      expectError(await op('GET', execDevice, 'read', { query: { path: target } }), 403, 'FORBIDDEN');
      expectError(await op('POST', execDevice, 'write', { body: { path: target, content: 'pwned' } }), 403, 'FORBIDDEN');
    }
    expectError(await op('GET', execDevice, 'ls', { query: { path: path.join(root, 'escape') } }), 403, 'FORBIDDEN');
    expectError(await op('POST', execDevice, 'write', { body: { path: path.join(root, 'escape', 'new.txt'), content: 'pwned' } }), 403, 'FORBIDDEN');
    expectError(await op('POST', execDevice, 'exec', { body: { cmd: 'pwd', cwd: outside } }), 403, 'FORBIDDEN');
    expectError(await op('DELETE', execDevice, 'rm', { body: { path: root, recursive: true } }), 403, 'FORBIDDEN');
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
  });

  it("security: a refusal does not say where a path outside the root leads", async () => {
    for (const target of [path.join(root, 'escape'), path.join(root, 'escape', 'secret.txt'), '/proc/self/cwd', '/proc/self/root/etc']) {
      const refused = expectError(await op('GET', execDevice, 'stat', { query: { path: target } }), 403, 'FORBIDDEN');
      expect(refused.message).toBe(`${target} is outside the folder this device's daemon may touch (${root})`);
      expect(JSON.stringify(refused)).not.toContain(outside);
    }
  });

  it('security: nothing a command starts outlives its request, not even in a session of its own', async () => {
    const [escaped, other] = [uniqueSleep(), uniqueSleep()];
    try {
      // `slee[p]`: a pattern the waiting shell's own command line does not match.
      const cmd = `setsid -f sh -c 'exec sleep ${escaped}'; until pgrep -f 'slee[p] ${escaped}' >/dev/null; do :; done`;
      const ran = await op('POST', execDevice, 'exec', { body: { cmd } });
      expect(ran.status).toBe(200);
      expect(survivors(escaped)).toEqual([]);

      const timedOut = await op('POST', execDevice, 'exec', { body: { cmd: `setsid sleep ${other} >/dev/null 2>&1 & sleep 60`, timeout: 1500 } });
      expectError(timedOut, 504, 'DEVICE_TIMEOUT');
      expect(survivors(other)).toEqual([]);
    } finally {
      killSurvivors(escaped);
      killSurvivors(other);
    }
  });

  it('the daemon says at start how it confines commands, and it is a PID namespace where this system offers one', () => {
    const line = daemons[0]!.output().split('\n').find((entry) => entry.includes('exec confinement:'));
    expect(line).toBeDefined();
    expect(line).toContain(namespacesAvailable ? 'a PID namespace per command' : 'exec confinement: none');
  });

  it('a command runs as the daemon’s user and group, in its cwd', async () => {
    const folder = path.join(root, 'docs');
    const ran = await op('POST', execDevice, 'exec', { body: { cmd: 'id -u; id -g; pwd', cwd: folder } });
    expect(ran.body.data).toMatchObject({ stdout: `${process.getuid!()}\n${process.getgid!()}\n${folder}\n`, exitCode: 0 });
  });

  it('security: a double fork that dropped the marker leaves no survivor, when the command exits and at the timeout (without a namespace: one that kept it)', async () => {
    // The attack: the marker dropped, a new session, a double fork; the shell exits at once.
    // Without a PID namespace only the marked variant can be ended (docs/decisions/remote-pcs.md).
    const spawnIt = (duration: string) => `${namespacesAvailable ? 'env -u HEARTH_EXEC_ID ' : ''}setsid -f sh -c 'sleep ${duration}'`;
    const [exits, times] = [uniqueSleep(), uniqueSleep()];
    try {
      const ran = await op('POST', execDevice, 'exec', { body: { cmd: `${spawnIt(exits)}; until pgrep -f 'slee[p] ${exits}' >/dev/null; do :; done` } });
      expect(ran.status).toBe(200);
      expect(survivors(exits)).toEqual([]);
      const timedOut = await op('POST', execDevice, 'exec', { body: { cmd: `${spawnIt(times)}; sleep 60`, timeout: 1500 } });
      expectError(timedOut, 504, 'DEVICE_TIMEOUT');
      expect(survivors(times)).toEqual([]);
    } finally {
      killSurvivors(exits);
      killSurvivors(times);
    }
  });

  it("security: a command cannot read the daemon's token from its environment, the daemon's /proc entries, or its command line", async () => {
    const daemonPid = daemons[0]!.child.pid!;
    // In a PID namespace the command's $PPID is not the daemon: it is named by its pid outside.
    const ran = await op('POST', execDevice, 'exec', {
      body: { cmd: `env; tr "\\0" "\\n" < /proc/${daemonPid}/environ; tr "\\0" " " < /proc/${daemonPid}/cmdline` },
    });
    expect(ran.status).toBe(200);
    expect(ran.body.data.stdout).toContain('PATH=');
    // The daemon's own entries were read: its command line names its root.
    expect(ran.body.data.stdout).toContain(`--root ${root}`);
    expect(ran.body.data.stdout).not.toContain(token);
    expect(ran.body.data.stdout).not.toContain(token.slice(-12));
    // What any process of the same user reads of the daemon directly.
    expect(readFileSync(`/proc/${daemonPid}/environ`, 'latin1')).not.toContain(token);
    expect(readFileSync(`/proc/${daemonPid}/cmdline`, 'latin1')).not.toContain(token);
  });

  it("security: another daemon, with another devices token of the owner, cannot take a device's name, privilege or root", async () => {
    const agentToken = await t.tokenWithScopes(owner, ['devices']);
    const intruder = startDaemon(['--server', base, '--root', '/', '--privilege', 'exec', '--name', 'e2e-exec'], {
      HEARTH_AFP_TOKEN: agentToken,
      HEARTH_AFP_KEY_FILE: path.join(dir, 'intruder.key'),
    });
    expect(await exited(intruder.child)).toBe(2);
    expect(intruder.output()).toContain(`device ${execDevice} is bound to another daemon's key`);
    const device = (await t.request('GET', `/api/v1/afp/devices/${execDevice}`, { token })).body.data;
    expect(device).toMatchObject({ status: 'online', privilege: 'exec', root });
    expect((await op('GET', execDevice, 'stat', { query: { path: root } })).body.data.path).toBe(root);
    expectError(await op('GET', execDevice, 'stat', { query: { path: '/etc' } }), 403, 'FORBIDDEN');
  });

  it('a command past its timeout is 504 DEVICE_TIMEOUT, with everything it started ended', async () => {
    const started = Date.now();
    const res = await op('POST', execDevice, 'exec', { body: { cmd: 'sleep 5', timeout: 1000 } });
    expectError(res, 504, 'DEVICE_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(4000);

    const duration = uniqueSleep();
    const tree = await op('POST', execDevice, 'exec', { body: { cmd: `sh -c "sleep ${duration}" & echo started; wait`, timeout: 1000 } });
    expectError(tree, 504, 'DEVICE_TIMEOUT');
    expect((tree.body.details as { stdout: string }).stdout).toBe('started\n');
    await waitFor(() => survivors(duration).length === 0, `the command's child sleep ${duration} to be ended`);
  });

  it('a daemon reconnects by itself after the server restarts, as the same device', async () => {
    const port = (t.app.server.address() as AddressInfo).port;
    await t.restart();
    await listen(t, port);
    const back = await deviceWithStatus(t, token, 'e2e-exec', 'online', 20_000);
    expect(back.id).toBe(execDevice);
    await deviceWithStatus(t, token, 'e2e-read', 'online', 20_000);
    expect((await op('GET', execDevice, 'stat', { query: { path: root } })).status).toBe(200);
  });

  it('SIGTERM stops a daemon cleanly; it shows offline and its operations answer 503', async () => {
    const read = daemons[1]!;
    read.child.kill('SIGTERM');
    expect(await exited(read.child)).toBe(0);
    await deviceWithStatus(t, token, 'e2e-read', 'offline');
    expectError(await op('GET', readDevice, 'ls', { query: { path: root } }), 503, 'DEVICE_OFFLINE');
  });

  it('once the daemon is killed, every operation answers 503 DEVICE_OFFLINE', async () => {
    const exec = daemons[0]!;
    exec.child.kill('SIGKILL');
    await exited(exec.child);
    await deviceWithStatus(t, token, 'e2e-exec', 'offline');
    const file = path.join(root, 'docs', 'todo.md');
    for (const [method, name, options] of [
      ['GET', 'ls', { query: { path: root } }],
      ['GET', 'read', { query: { path: file } }],
      ['POST', 'write', { body: { path: file, content: 'x' } }],
      ['POST', 'exec', { body: { cmd: 'true' } }],
      ['GET', 'stat', { query: { path: file } }],
      ['DELETE', 'rm', { body: { path: file } }],
      ['POST', 'mkdir', { body: { path: path.join(root, 'x') } }],
    ] as const) {
      expectError(await op(method, execDevice, name, options), 503, 'DEVICE_OFFLINE');
    }
  });
});
