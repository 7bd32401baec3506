/**
 * The daemon's operations under its policy, without a server: what each answers, and what it
 * refuses (the root, links pointing out, sizes, leftovers of a command).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/shared/afp.protocol.js';
import { runOp } from './ops.js';
import { createPolicy, DaemonError, type Policy } from './policy.js';

let base: string;
let root: string;
let outside: string;
let exec: Policy;
let readOnly: Policy;

async function refused(op: Parameters<typeof runOp>[1], args: unknown, policy = exec): Promise<DaemonError> {
  try {
    await runOp(policy, op, args);
  } catch (error) {
    if (error instanceof DaemonError) return error;
    throw error;
  }
  throw new Error(`expected ${op} to be refused`);
}

/** Alive and not a zombie waiting for a parent to reap it. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'hearth-afp-ops-'));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  mkdirSync(path.join(root, 'docs'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  exec = await createPolicy(root, 'exec');
  readOnly = await createPolicy(root, 'read');
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('files', () => {
  it('writes, reads, lists and stats text', async () => {
    const file = path.join(root, 'docs', 'note.md');
    expect(await runOp(exec, 'write', { path: file, content: 'héllo\n', encoding: 'utf8' })).toEqual({ path: file, size: 7, created: true });
    expect(await runOp(exec, 'write', { path: file, content: 'hello\n', encoding: 'utf8' })).toEqual({ path: file, size: 6, created: false });
    expect(await runOp(exec, 'read', { path: file })).toEqual({ path: file, content: 'hello\n', encoding: 'utf8', size: 6 });
    expect(await runOp(exec, 'read', { path: file, encoding: 'base64' })).toMatchObject({ content: Buffer.from('hello\n').toString('base64'), encoding: 'base64' });
    const listing = (await runOp(exec, 'ls', { path: path.join(root, 'docs') })) as { entries: Array<{ name: string; type: string; size: number }> };
    expect(listing.entries).toEqual([expect.objectContaining({ name: 'note.md', type: 'file', size: 6 })]);
    expect(await runOp(exec, 'stat', { path: file })).toMatchObject({ path: file, type: 'file', size: 6, mode: expect.stringMatching(/^0[0-7]{3}$/) });
  });

  it('reads binary files as base64 and writes base64', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    const file = path.join(root, 'blob.bin');
    await runOp(exec, 'write', { path: file, content: bytes.toString('base64'), encoding: 'base64' });
    expect(readFileSync(file)).toEqual(bytes);
    expect(await runOp(exec, 'read', { path: file })).toMatchObject({ content: bytes.toString('base64'), encoding: 'base64', size: 5 });
    // Invalid UTF-8 without NUL is binary too.
    writeFileSync(file, Buffer.from([0xc3, 0x28]));
    expect(await runOp(exec, 'read', { path: file })).toMatchObject({ encoding: 'base64' });
    expect((await refused('write', { path: file, content: 'not base64!', encoding: 'base64' })).code).toBe('INVALID');
  });

  it('refuses files over 10 MiB', async () => {
    const file = path.join(root, 'big.bin');
    writeFileSync(file, '');
    truncateSync(file, LIMITS.maxFileBytes + 1);
    const error = await refused('read', { path: file });
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toContain('10 MiB');
    rmSync(file);
  });

  it('answers NOT_FOUND, INVALID and CONFLICT where they apply', async () => {
    expect((await refused('read', { path: path.join(root, 'missing.txt') })).code).toBe('NOT_FOUND');
    expect((await refused('write', { path: path.join(root, 'no-folder', 'x.txt'), content: 'x', encoding: 'utf8' })).message).toContain('mkdir');
    expect((await refused('read', { path: path.join(root, 'docs') })).code).toBe('INVALID');
    expect((await refused('ls', { path: path.join(root, 'docs', 'note.md') })).code).toBe('INVALID');
    expect((await refused('write', { path: path.join(root, 'docs'), content: 'x', encoding: 'utf8' })).code).toBe('CONFLICT');
    expect((await refused('mkdir', { path: path.join(root, 'docs', 'note.md'), recursive: true })).code).toBe('CONFLICT');
    expect((await refused('mkdir', { path: path.join(root, 'docs'), recursive: false })).code).toBe('CONFLICT');
  });

  it('mkdir creates parents, and is idempotent when recursive', async () => {
    const dir = path.join(root, 'a', 'b', 'c');
    expect(await runOp(exec, 'mkdir', { path: dir, recursive: true })).toEqual({ path: dir, created: true });
    expect(await runOp(exec, 'mkdir', { path: dir, recursive: true })).toEqual({ path: dir, created: false });
    expect((await refused('mkdir', { path: path.join(root, 'x', 'y'), recursive: false })).code).toBe('NOT_FOUND');
  });

  it('rm needs recursive for a folder that is not empty, and never removes the root', async () => {
    expect((await refused('rm', { path: path.join(root, 'a'), recursive: false })).code).toBe('CONFLICT');
    expect(await runOp(exec, 'rm', { path: path.join(root, 'a'), recursive: true })).toEqual({ path: path.join(root, 'a'), type: 'directory', deleted: true });
    expect(existsSync(path.join(root, 'a'))).toBe(false);
    for (const target of [root, `${root}/`, path.join(root, 'docs', '..')]) {
      const error = await refused('rm', { path: target, recursive: true });
      expect(error.code).toBe('FORBIDDEN');
      expect(error.message).toContain('root folder');
    }
    expect(existsSync(root)).toBe(true);
  });

  it('rm removes a link, not what it points to; a link pointing out is refused', async () => {
    const target = path.join(root, 'docs', 'kept.txt');
    writeFileSync(target, 'kept');
    symlinkSync(target, path.join(root, 'kept-link'));
    expect(await runOp(exec, 'rm', { path: path.join(root, 'kept-link'), recursive: false })).toMatchObject({ type: 'symlink', deleted: true });
    expect(existsSync(target)).toBe(true);
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'secret-link'));
    expect((await refused('rm', { path: path.join(root, 'secret-link'), recursive: false })).code).toBe('FORBIDDEN');
    expect((await refused('read', { path: path.join(root, 'secret-link') })).code).toBe('FORBIDDEN');
    expect((await refused('write', { path: path.join(root, 'secret-link'), content: 'x', encoding: 'utf8' })).code).toBe('FORBIDDEN');
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
  });

  it('a read-only daemon refuses every change, whatever the arguments', async () => {
    for (const [op, args] of [
      ['write', { path: path.join(root, 'x.txt'), content: 'x', encoding: 'utf8' }],
      ['mkdir', { path: path.join(root, 'x'), recursive: true }],
      ['rm', { path: path.join(root, 'docs'), recursive: true }],
      ['exec', { cmd: 'touch x', timeout: 1000 }],
    ] as const) {
      expect((await refused(op, args, readOnly)).code).toBe('FORBIDDEN');
    }
    expect(existsSync(path.join(root, 'docs'))).toBe(true);
  });

  it('checks the arguments itself', async () => {
    expect((await refused('write', { path: path.join(root, 'x.txt'), content: 1, encoding: 'utf8' })).code).toBe('INVALID');
    expect((await refused('exec', { cmd: 'true', timeout: LIMITS.execMaxTimeoutMs + 1 })).code).toBe('INVALID');
  });
});

describe('exec', () => {
  it('runs in the root by default, or in cwd inside it, and answers the exit code', async () => {
    expect(await runOp(exec, 'exec', { cmd: 'pwd; echo oops >&2; exit 3', timeout: 5000 })).toMatchObject({
      stdout: `${exec.root}\n`,
      stderr: 'oops\n',
      exitCode: 3,
      signal: null,
      truncated: false,
    });
    expect(await runOp(exec, 'exec', { cmd: 'pwd', cwd: path.join(root, 'docs'), timeout: 5000 })).toMatchObject({ stdout: `${path.join(exec.root, 'docs')}\n` });
    expect((await refused('exec', { cmd: 'pwd', cwd: outside, timeout: 5000 })).code).toBe('FORBIDDEN');
  });

  it('never shows the daemon its own settings', async () => {
    process.env.HEARTH_AFP_TOKEN = 'hth_pat_secret';
    try {
      const result = (await runOp(exec, 'exec', { cmd: 'env', timeout: 5000 })) as { stdout: string };
      expect(result.stdout).not.toContain('hth_pat_secret');
      // No HEARTH_AFP_* name at all: the exec marker is not one of the daemon's settings.
      expect(result.stdout).not.toMatch(/^HEARTH_AFP_/im);
      expect(result.stdout).toContain('PATH=');
    } finally {
      delete process.env.HEARTH_AFP_TOKEN;
    }
  });

  it('cuts each stream at 1 MiB and says so', async () => {
    const result = (await runOp(exec, 'exec', { cmd: 'head -c 1500000 /dev/zero | tr "\\0" x', timeout: 10_000 })) as { stdout: string; truncated: boolean };
    expect(result.stdout.length).toBe(LIMITS.maxOutputBytes);
    expect(result.truncated).toBe(true);
  });

  it('at the timeout ends the command and everything it started', async () => {
    const error = await refused('exec', { cmd: 'sleep 30 & echo $!; wait', timeout: 500 });
    expect(error.code).toBe('TIMEOUT');
    const details = error.details as { stdout: string };
    const child = Number(details.stdout.trim());
    expect(child).toBeGreaterThan(0);
    await until(() => !alive(child), `process ${child} to end`);
  });

  it.runIf(process.platform === 'linux')('security: a process that left the group and session (setsid) is ended when the command exits, and the answer does not wait for it', async () => {
    const started = Date.now();
    // The escaped process keeps the command's stdout open: the answer must not wait for it. The
    // shell exits only once it has its own session (field 6 of its stat is its session id).
    const cmd = `setsid sh -c 'exec sleep 300' & p=$!; echo $p; until [ "$(cut -d' ' -f6 /proc/$p/stat)" = "$p" ]; do :; done`;
    const result = (await runOp(exec, 'exec', { cmd, timeout: 10_000 })) as { stdout: string; exitCode: number };
    expect(result.exitCode).toBe(0);
    const escaped = Number(result.stdout.trim());
    expect(escaped).toBeGreaterThan(1);
    expect(alive(escaped)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
  }, 20_000);

  it.runIf(process.platform === 'linux')('security: at the timeout, processes in other sessions and orphaned ones are ended too', async () => {
    const error = await refused('exec', { cmd: "setsid sleep 300 >/dev/null 2>&1 & echo $!; (sh -c 'sleep 300 & echo $!' ) ; sleep 30", timeout: 1500 });
    expect(error.code).toBe('TIMEOUT');
    const pids = (error.details as { stdout: string }).stdout.trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(alive(pid), `process ${pid}`).toBe(false);
  }, 20_000);

  it.runIf(process.platform === 'linux')('a descendant that cleared its environment and left the session is still ended once it was seen running', async () => {
    const result = (await runOp(exec, 'exec', { cmd: 'env -i setsid sleep 300 >/dev/null 2>&1 & echo $!; sleep 2.5', timeout: 10_000 })) as { stdout: string };
    const escaped = Number(result.stdout.trim());
    expect(escaped).toBeGreaterThan(1);
    expect(alive(escaped)).toBe(false);
  }, 20_000);

  it('when the command exits, what it left in the background is ended too', async () => {
    const result = (await runOp(exec, 'exec', { cmd: 'sleep 30 >/dev/null 2>&1 & echo $!', timeout: 5000 })) as { stdout: string; exitCode: number };
    expect(result.exitCode).toBe(0);
    const child = Number(result.stdout.trim());
    await until(() => !alive(child), `process ${child} to end`);
  });
});
