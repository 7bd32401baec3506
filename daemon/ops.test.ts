// @engine-independent: the PC daemon's own code; no server, no database
/**
 * The daemon's operations under its policy, without a server: what each answers, and what it
 * refuses (the root, links pointing out, sizes, leftovers of a command), with each way a command
 * can be confined (daemon/confine.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/shared/afp.protocol.js';
import { describeConfinement, probeConfinement, useConfinement, type Confinement } from './confine.js';
import { killSurvivors, namespacesAvailable, survivors, uniqueSleep } from '../test/procfs.js';
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

describe.runIf(process.platform === 'linux')('exec confinement (Linux)', () => {
  let confinement: Confinement;
  beforeAll(async () => {
    confinement = await probeConfinement();
    useConfinement(confinement);
  });
  afterAll(() => useConfinement({ kind: 'none', reason: 'reset after the confinement tests' }));

  it('the probe finds a PID namespace exactly where this system offers one', () => {
    expect(confinement.kind).toBe(namespacesAvailable ? 'pid-namespace' : 'none');
    expect(describeConfinement(confinement)).toMatch(/^exec confinement: /);
  });

  it('without unshare the probe falls back, and says why', async () => {
    const saved = process.env.PATH;
    process.env.PATH = path.join(base, 'no-such-folder');
    try {
      const fallback = await probeConfinement();
      expect(fallback).toEqual({ kind: 'none', reason: expect.stringContaining('unshare') });
      expect(describeConfinement(fallback)).toContain('exec confinement: none');
    } finally {
      process.env.PATH = saved;
    }
  });

  it('the command runs as the daemon’s user and group, in its cwd, with its environment', async () => {
    const result = (await runOp(exec, 'exec', { cmd: 'echo "$$"; id -u; id -g; pwd; echo "$HOME"', cwd: path.join(root, 'docs'), timeout: 5000 })) as {
      stdout: string;
      exitCode: number;
    };
    expect(result.exitCode).toBe(0);
    const [shellPid, uid, gid, cwd, home] = result.stdout.split('\n');
    expect(Number(uid)).toBe(process.getuid!());
    expect(Number(gid)).toBe(process.getgid!());
    expect(cwd).toBe(path.join(exec.root, 'docs'));
    expect(home).toBe(process.env.HOME ?? '');
    // The shell is the first process of its namespace, or an ordinary one without.
    if (namespacesAvailable) expect(shellPid).toBe('1');
    else expect(Number(shellPid)).toBeGreaterThan(1);
  });

  // `slee[p]`: a pattern the waiting shell's own command line does not match.
  // The attack: the marker dropped, a new session, a double fork; the shell exits at once.
  const attack = (duration: string) => `env -u HEARTH_EXEC_ID setsid -f sh -c 'sleep ${duration}'`;
  // What the fallback can still end: the same without dropping the marker.
  const marked = (duration: string) => `setsid -f sh -c 'sleep ${duration}'`;

  it('security: a double fork that dropped the marker does not survive the command (the fallback: one that kept it)', async () => {
    const duration = uniqueSleep();
    try {
      const cmd = confinement.kind === 'pid-namespace' ? attack(duration) : marked(duration);
      const result = (await runOp(exec, 'exec', { cmd: `${cmd}; until pgrep -f 'slee[p] ${duration}' >/dev/null; do :; done`, timeout: 10_000 })) as {
        exitCode: number;
      };
      expect(result.exitCode).toBe(0);
      expect(survivors(duration)).toEqual([]);
    } finally {
      killSurvivors(duration);
    }
  }, 20_000);

  it('security: at the timeout, a double fork that dropped the marker is ended too (the fallback: one that kept it)', async () => {
    const duration = uniqueSleep();
    try {
      const cmd = confinement.kind === 'pid-namespace' ? attack(duration) : marked(duration);
      const error = await refused('exec', { cmd: `${cmd}; sleep 30`, timeout: 1500 });
      expect(error.code).toBe('TIMEOUT');
      expect(survivors(duration)).toEqual([]);
    } finally {
      killSurvivors(duration);
    }
  }, 20_000);

  it('exit codes, both streams and the output cap pass through the confinement unchanged', async () => {
    expect(await runOp(exec, 'exec', { cmd: 'echo out; echo err >&2; exit 42', timeout: 5000 })).toMatchObject({
      stdout: 'out\n',
      stderr: 'err\n',
      exitCode: 42,
      signal: null,
    });
    const big = (await runOp(exec, 'exec', { cmd: 'head -c 1500000 /dev/zero | tr "\\0" x', timeout: 10_000 })) as { stdout: string; truncated: boolean };
    expect(big.stdout.length).toBe(LIMITS.maxOutputBytes);
    expect(big.truncated).toBe(true);
  });
});

// The same guarantees with each confinement this system has: a PID namespace where it can, and
// always the fallback (marker, group, session, descendants), which other systems rely on.
const modes: Array<[string, () => Promise<Confinement>]> = [
  ['in a PID namespace where the system allows it', probeConfinement],
  ['without a namespace (the fallback)', async () => ({ kind: 'none', reason: 'the fallback under test' })],
];

describe.each(modes)('exec %s', (_name, choose) => {
  beforeAll(async () => useConfinement(await choose()));

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
    const duration = uniqueSleep();
    const started = Date.now();
    const error = await refused('exec', { cmd: `sleep ${duration} & echo started; wait`, timeout: 500 });
    expect(error.code).toBe('TIMEOUT');
    expect((error.details as { stdout: string }).stdout).toBe('started\n');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(survivors(duration)).toEqual([]);
  });

  it.runIf(process.platform === 'linux')('security: a process that left the group and session (setsid) is ended when the command exits, and the answer does not wait for it', async () => {
    const duration = uniqueSleep();
    const started = Date.now();
    // The escaped process keeps the command's stdout open: the answer must not wait for it. The
    // shell exits only once it runs.
    const cmd = `setsid -f sh -c 'exec sleep ${duration}'; until pgrep -f 'slee[p] ${duration}' >/dev/null; do :; done`;
    const result = (await runOp(exec, 'exec', { cmd, timeout: 10_000 })) as { exitCode: number };
    expect(result.exitCode).toBe(0);
    expect(survivors(duration)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  }, 20_000);

  it.runIf(process.platform === 'linux')('security: at the timeout, processes in other sessions and orphaned ones are ended too', async () => {
    const [first, second] = [uniqueSleep(), uniqueSleep()];
    const error = await refused('exec', { cmd: `setsid sleep ${first} >/dev/null 2>&1 & (sh -c 'sleep ${second} & echo $!' ) ; sleep 30`, timeout: 1500 });
    expect(error.code).toBe('TIMEOUT');
    expect(survivors(first)).toEqual([]);
    expect(survivors(second)).toEqual([]);
  }, 20_000);

  it.runIf(process.platform === 'linux')('a descendant that cleared its environment and left the session is still ended once it was seen running', async () => {
    const duration = uniqueSleep();
    const result = (await runOp(exec, 'exec', { cmd: `env -i setsid sleep ${duration} >/dev/null 2>&1 & sleep 2.5`, timeout: 10_000 })) as { exitCode: number };
    expect(result.exitCode).toBe(0);
    expect(survivors(duration)).toEqual([]);
  }, 20_000);

  it('when the command exits, what it left in the background is ended too', async () => {
    const duration = uniqueSleep();
    const result = (await runOp(exec, 'exec', { cmd: `sleep ${duration} >/dev/null 2>&1 & echo started`, timeout: 5000 })) as { stdout: string; exitCode: number };
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('started\n');
    await until(() => survivors(duration).length === 0, `the background sleep ${duration} to end`);
  });
});
