/**
 * The operations the daemon performs on its PC, each behind the policy: privilege first, then
 * every path resolved and checked against the root. Results are the shapes of afp.protocol.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { LIMITS, OPS, OpArgs, type Op, type OpArgsOf, type OpResultOf } from '../src/shared/afp.protocol.js';
import { checkPrivilege, DaemonError, resolveInside, type Policy } from './policy.js';
import { PRIVATE_ENV } from './config.js';
import { canReap, EXEC_MARKER_ENV, reapExec, trackDescendants, type ExecProcesses } from './reap.js';
import { execConfinement } from './confine.js';

const argCheckers = Object.fromEntries(OPS.map((op) => [op, TypeCompiler.Compile<TSchema>(OpArgs[op])])) as Record<Op, TypeCheck<TSchema>>;

function typeOf(entry: Stats): 'file' | 'directory' | 'symlink' | 'other' {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'symlink';
  return 'other';
}

/** Turns what the file system said into an answer the server can pass on. */
export function fsError(error: unknown, target: string): DaemonError {
  if (error instanceof DaemonError) return error;
  const e = error as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return new DaemonError('NOT_FOUND', `No such file or folder: ${target}`);
    case 'ENOTDIR':
      return new DaemonError('NOT_FOUND', `A part of ${target} is not a folder`);
    case 'EACCES':
    case 'EPERM':
      return new DaemonError('FORBIDDEN', `The operating system refused access to ${target} (${e.code})`);
    case 'EEXIST':
      return new DaemonError('CONFLICT', `${target} already exists`);
    case 'ENOTEMPTY':
      return new DaemonError('CONFLICT', `The folder ${target} is not empty; pass recursive: true to remove it with its contents`);
    case 'EISDIR':
      return new DaemonError('CONFLICT', `${target} is a folder`);
    case 'EBUSY':
      return new DaemonError('CONFLICT', `${target} is in use`);
    case 'ENOSPC':
      return new DaemonError('INTERNAL', 'The device has no space left');
    default:
      return new DaemonError('INTERNAL', `${target}: ${e?.code ?? 'error'} ${e?.message ?? String(error)}`.slice(0, 500));
  }
}

async function onPath<T>(target: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw fsError(error, target);
  }
}

async function ls(policy: Policy, args: OpArgsOf<'ls'>): Promise<OpResultOf<'ls'>> {
  const dir = await resolveInside(policy, args.path);
  return onPath(dir, async () => {
    const info = await stat(dir);
    if (!info.isDirectory()) throw new DaemonError('INVALID', `${dir} is not a folder; use stat or read`);
    const names = (await readdir(dir)).sort();
    const truncated = names.length > LIMITS.maxEntries;
    const entries = [];
    for (const name of names.slice(0, LIMITS.maxEntries)) {
      try {
        const entry = await lstat(path.join(dir, name));
        entries.push({ name, type: typeOf(entry), size: entry.size, modifiedAt: entry.mtime.toISOString() });
      } catch {
        // Removed while listing: it is simply not there any more.
      }
    }
    return { path: dir, entries, truncated };
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Text is UTF-8 without NUL bytes; anything else is sent as base64. */
function asText(data: Buffer): string | null {
  if (data.includes(0)) return null;
  try {
    return utf8.decode(data);
  } catch {
    return null;
  }
}

async function read(policy: Policy, args: OpArgsOf<'read'>): Promise<OpResultOf<'read'>> {
  const file = await resolveInside(policy, args.path);
  return onPath(file, async () => {
    const handle = await open(file, 'r');
    try {
      const info = await handle.stat();
      if (info.isDirectory()) throw new DaemonError('INVALID', `${file} is a folder; use ls`);
      if (!info.isFile()) throw new DaemonError('INVALID', `${file} is not a regular file`);
      if (info.size > LIMITS.maxFileBytes) {
        throw new DaemonError('TOO_LARGE', `${file} is ${info.size} bytes; read answers files of at most ${LIMITS.maxFileBytes} bytes (10 MiB)`, {
          size: info.size,
          maxBytes: LIMITS.maxFileBytes,
        });
      }
      // Read at most one byte past the limit, in case the file grew since stat.
      const buffer = Buffer.alloc(Math.min(info.size, LIMITS.maxFileBytes) + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length === buffer.length) break;
      }
      if (length > LIMITS.maxFileBytes) throw new DaemonError('TOO_LARGE', `${file} is larger than ${LIMITS.maxFileBytes} bytes (10 MiB)`);
      const data = buffer.subarray(0, length);
      const text = args.encoding === 'base64' ? null : asText(data);
      return text === null
        ? { path: file, content: data.toString('base64'), encoding: 'base64', size: length }
        : { path: file, content: text, encoding: 'utf8', size: length };
    } finally {
      await handle.close();
    }
  });
}

function decodeContent(content: string, encoding: 'utf8' | 'base64'): Buffer {
  if (encoding === 'utf8') return Buffer.from(content, 'utf8');
  // Buffer.from silently skips characters that are not base64; refuse them instead.
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) throw new DaemonError('INVALID', 'content is not valid base64');
  return Buffer.from(compact, 'base64');
}

async function write(policy: Policy, args: OpArgsOf<'write'>): Promise<OpResultOf<'write'>> {
  const file = await resolveInside(policy, args.path);
  if (file === policy.root) throw new DaemonError('CONFLICT', `${file} is the root folder`);
  const data = decodeContent(args.content, args.encoding);
  if (data.length > LIMITS.maxFileBytes) {
    throw new DaemonError('TOO_LARGE', `The content is ${data.length} bytes; write takes at most ${LIMITS.maxFileBytes} (10 MiB)`);
  }
  return onPath(file, async () => {
    let created = true;
    try {
      const existing = await stat(file);
      if (existing.isDirectory()) throw new DaemonError('CONFLICT', `${file} is a folder`);
      created = false;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    try {
      await writeFile(file, data);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new DaemonError('NOT_FOUND', `The folder ${path.dirname(file)} does not exist; create it with mkdir first`);
      }
      throw error;
    }
    return { path: file, size: data.length, created };
  });
}

async function statOp(policy: Policy, args: OpArgsOf<'stat'>): Promise<OpResultOf<'stat'>> {
  const target = await resolveInside(policy, args.path);
  return onPath(target, async () => {
    const info = await stat(target);
    return {
      path: target,
      type: typeOf(info),
      size: info.size,
      modifiedAt: info.mtime.toISOString(),
      mode: (info.mode & 0o7777).toString(8).padStart(4, '0'),
    };
  });
}

/**
 * Removes the entry itself: a symbolic link is removed, not what it points to. Both the entry
 * (its folder resolved) and what it resolves to must lie inside the root.
 */
async function rmOp(policy: Policy, args: OpArgsOf<'rm'>): Promise<OpResultOf<'rm'>> {
  const resolved = await resolveInside(policy, args.path);
  if (resolved === policy.root) throw new DaemonError('FORBIDDEN', `${args.path} is this device's root folder; it cannot be removed`);
  const lexical = path.resolve(args.path);
  const entry = path.join(await resolveInside(policy, path.dirname(lexical)), path.basename(lexical));
  return onPath(entry, async () => {
    const info = await lstat(entry);
    const type = typeOf(info);
    if (type === 'directory') {
      if (args.recursive) await rm(entry, { recursive: true });
      else await rmdir(entry);
    } else {
      await rm(entry);
    }
    return { path: entry, type, deleted: true as const };
  });
}

async function mkdirOp(policy: Policy, args: OpArgsOf<'mkdir'>): Promise<OpResultOf<'mkdir'>> {
  const target = await resolveInside(policy, args.path);
  return onPath(target, async () => {
    try {
      const existing = await stat(target);
      if (!existing.isDirectory()) throw new DaemonError('CONFLICT', `${target} exists and is not a folder`);
      if (!args.recursive) throw new DaemonError('CONFLICT', `The folder ${target} already exists`);
      return { path: target, created: false };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await mkdir(target, { recursive: args.recursive });
    return { path: target, created: true };
  });
}

/** How long the output pipes may stay open once everything the command started is ended. */
const PIPE_GRACE_MS = 2000;
/** How often the descendants of running commands are looked up (Linux), to end them later. */
const TRACK_EVERY_MS = 1000;

interface RunningCommand {
  child: ChildProcess;
  processes: ExecProcesses;
  /** Ends the command and everything it started; resolves when nothing of it is left. */
  end(): Promise<void>;
}

/** Commands running now, so that a stopping daemon can end them. */
const running = new Set<RunningCommand>();
let tracker: NodeJS.Timeout | undefined;

/**
 * Ends a command and every process it started. Linux: in a PID namespace (daemon/confine.ts),
 * killing the group kills `unshare`, whose death kills the shell and with it the namespace; then,
 * and without a namespace, every process carrying its marker or descending from it, in or out of
 * its group and session (daemon/reap.ts). macOS: its process group. Windows: its process tree as
 * it is now (`taskkill /T`).
 */
async function killAll(command: Pick<RunningCommand, 'child' | 'processes'>): Promise<void> {
  const { child } = command;
  if (child.pid === undefined) return;
  if (process.platform === 'win32') {
    if (child.exitCode === null && child.signalCode === null) {
      spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => {});
    }
    return;
  }
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
  await reapExec(command.processes);
}

/** Ends every running command and all they started (the daemon is stopping). */
export async function killRunningCommands(): Promise<void> {
  await Promise.all([...running].map((command) => command.end()));
}

function collector(max: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  return {
    add(chunk: Buffer) {
      if (size >= max) {
        truncated = true;
        return;
      }
      const room = max - size;
      if (chunk.length > room) truncated = true;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(part);
      size += part.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
    get truncated() {
      return truncated;
    },
  };
}

/** Starts `cmd` in a shell in `cwd`, confined where the system allows. */
async function startShell(cmd: string, cwd: string): Promise<{ child: ChildProcess; marker: string; windows: boolean; started: number }> {
  // The daemon's own settings (the token) never reach a command; the marker lets every process
  // the command starts be found again, wherever it moved (daemon/reap.ts).
  const marker = randomBytes(16).toString('hex');
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !PRIVATE_ENV.test(name))), [EXEC_MARKER_ENV]: marker };
  const windows = process.platform === 'win32';
  const confinement = windows ? undefined : await execConfinement();
  // In a PID namespace the shell is its first process: when it exits, everything left in the
  // namespace is killed by the kernel (daemon/confine.ts).
  const [program, ...programArgs] = confinement?.kind === 'pid-namespace' ? [...confinement.prefix, '/bin/sh', '-c', cmd] : ['/bin/sh', '-c', cmd];
  const started = Date.now();
  const child = windows
    ? spawn(process.env.ComSpec || 'cmd.exe', ['/d', '/s', '/c', `"${cmd}"`], {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
        windowsVerbatimArguments: true,
      })
    : // Its own process group and session, so that the command and what it starts can be ended together.
      spawn(program!, programArgs, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  return { child, marker, windows, started };
}

async function exec(policy: Policy, args: OpArgsOf<'exec'>): Promise<OpResultOf<'exec'>> {
  const cwd = args.cwd === undefined ? policy.root : await resolveInside(policy, args.cwd, 'cwd');
  await onPath(cwd, async () => {
    if (!(await stat(cwd)).isDirectory()) throw new DaemonError('INVALID', `cwd ${cwd} is not a folder`);
  });
  const { child, marker, windows, started } = await startShell(args.cmd, cwd);
  const processes: ExecProcesses = { shellPid: child.pid ?? -1, marker, seen: new Map() };
  let ending: Promise<void> = Promise.resolve();
  // Each call looks again (something may have started since the last one), one after the other.
  const end = () => (ending = ending.then(() => killAll({ child, processes })));
  const command: RunningCommand = { child, processes, end };
  running.add(command);
  if (canReap && !tracker) {
    tracker = setInterval(() => trackDescendants([...running].map((c) => c.processes)), TRACK_EVERY_MS);
    tracker.unref();
  }
  const stdout = collector(LIMITS.maxOutputBytes);
  const stderr = collector(LIMITS.maxOutputBytes);
  child.stdout!.on('data', (chunk: Buffer) => stdout.add(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.add(chunk));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void end();
  }, args.timeout);

  try {
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    // The shell is done: whatever it left running, in the background or elsewhere, is ended
    // too, so that nothing outlives the request (on Windows the tree is only known while it runs).
    if (!windows) await end();
    // The output is complete once its pipes close. A process that escaped the ending could hold
    // them open for ever: the answer does not wait for it.
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise<void>((resolve) => (grace = setTimeout(resolve, PIPE_GRACE_MS)))]);
    clearTimeout(grace);
    child.stdout!.destroy();
    child.stderr!.destroy();
    const result = {
      stdout: stdout.text(),
      stderr: stderr.text(),
      exitCode: code,
      signal: signal ?? null,
      truncated: stdout.truncated || stderr.truncated,
      durationMs: Date.now() - started,
    };
    if (timedOut) {
      throw new DaemonError('TIMEOUT', `The command did not finish within ${args.timeout} ms; it was ended with everything it started`, {
        stdout: result.stdout,
        stderr: result.stderr,
        truncated: result.truncated,
        timeoutMs: args.timeout,
      });
    }
    return result;
  } catch (error) {
    if (error instanceof DaemonError) throw error;
    throw new DaemonError('INTERNAL', `The command could not be started: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
    running.delete(command);
    if (running.size === 0 && tracker) {
      clearInterval(tracker);
      tracker = undefined;
    }
  }
}

const handlers: { [O in Op]: (policy: Policy, args: OpArgsOf<O>) => Promise<OpResultOf<O>> } = {
  ls,
  read,
  write,
  exec,
  stat: statOp,
  rm: rmOp,
  mkdir: mkdirOp,
};

/** Runs one operation under the policy: the privilege, then the arguments, then the paths. */
export async function runOp(policy: Policy, op: Op, args: unknown): Promise<unknown> {
  checkPrivilege(policy, op);
  const checker = argCheckers[op];
  if (!checker.Check(args)) {
    const first = checker.Errors(args).First();
    throw new DaemonError('INVALID', `Invalid arguments for ${op}: ${first ? `${first.path || 'args'} ${first.message}` : 'malformed'}`);
  }
  return (handlers[op] as (policy: Policy, args: unknown) => Promise<unknown>)(policy, args);
}
