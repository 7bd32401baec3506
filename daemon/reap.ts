/**
 * Linux: finds and ends every process an exec started, including those that left its process
 * group and session (`setsid cmd &`) or were orphaned to init when the shell exited.
 *
 * Each exec runs with a random marker in its environment (EXEC_MARKER_ENV). Children inherit
 * the environment, and /proc/<pid>/environ shows it for every process of the same user. When
 * the exec ends, `reapMarked` SIGKILLs every process carrying the marker, every process of the
 * shell's group or session, and every descendant of those (by parent pid), then looks again,
 * until a look finds nothing alive. While the exec runs, `trackDescendants` also remembers the
 * descendants it sees (by parent pid), so that one that cleared its environment is still ended
 * if it was seen.
 *
 * Where commands run in a PID namespace of their own (daemon/confine.ts) the kernel ends them
 * all when the shell exits; this is then a second line of defence. Without one, not covered
 * (docs/decisions/remote-pcs.md): a process that clears its environment and double-forks
 * between two looks, and work handed to another service (systemd --user, cron,
 * at, an ssh to this PC, a terminal multiplexer already running). Only a cgroup of its own or
 * a dedicated user would confine those.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { procStatFields } from './procfs.js';

/** Not a HEARTH_AFP_* name: those are the daemon's settings (config.ts), withheld from commands. */
export const EXEC_MARKER_ENV = 'HEARTH_EXEC_ID';

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** Clock ticks after boot: with the pid, who a process is (pids are reused). */
  start: string;
  dead: boolean;
}

/** Whether this system shows processes the way this file reads them. */
export const canReap = process.platform === 'linux' && procStatFields('self') !== undefined;

function readProc(pid: number): Proc | undefined {
  const fields = procStatFields(pid);
  if (!fields) return undefined;
  const state = fields[0] ?? '';
  return {
    pid,
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    sid: Number(fields[3]),
    start: fields[19] ?? '',
    dead: state === 'Z' || state === 'X' || state === 'x',
  };
}

function listProcs(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const proc = readProc(pid);
    if (proc) out.push(proc);
  }
  return out;
}

/**
 * The daemon's user. Only its processes' environments are read: another user's cannot be, and
 * a command keeps the daemon's user (one that changes user, through sudo say, is still ended as
 * a descendant or a member of the shell's group).
 */
const ownUid = process.getuid?.();

function carriesMarker(pid: number, needle: Buffer): boolean {
  let environ: Buffer;
  try {
    if (statSync(`/proc/${pid}`).uid !== ownUid) return false;
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    // Gone, or not readable.
    return false;
  }
  for (let at = environ.indexOf(needle); at !== -1; at = environ.indexOf(needle, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}

/** Every process in `procs` below one of `roots`, by parent pid. */
function descendantsOf(procs: Proc[], roots: Set<number>): Set<number> {
  const children = new Map<number, number[]>();
  for (const proc of procs) {
    const siblings = children.get(proc.ppid);
    if (siblings) siblings.push(proc.pid);
    else children.set(proc.ppid, [proc.pid]);
  }
  const out = new Set<number>();
  const queue = [...roots];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (!out.has(child) && child !== process.pid) {
        out.add(child);
        queue.push(child);
      }
    }
  }
  return out;
}

/** One exec's processes: its shell, its marker and the descendants seen while it ran. */
export interface ExecProcesses {
  /** The process exec spawned: the shell, or `unshare` in front of it (daemon/confine.ts). */
  shellPid: number;
  marker: string;
  /** pid → start time of the descendants seen so far. */
  seen: Map<number, string>;
}

/** Remembers the descendants of each running exec's shell and of those already seen. */
export function trackDescendants(execs: Iterable<ExecProcesses>): void {
  const list = [...execs];
  if (!canReap || list.length === 0) return;
  const procs = listProcs();
  const byPid = new Map(procs.map((proc) => [proc.pid, proc]));
  for (const exec of list) {
    const roots = new Set([exec.shellPid, ...[...exec.seen].filter(([pid, start]) => byPid.get(pid)?.start === start).map(([pid]) => pid)]);
    for (const pid of descendantsOf(procs, roots)) exec.seen.set(pid, byPid.get(pid)!.start);
  }
}

/**
 * SIGKILLs every process of the exec until a look finds none alive (at most `maxRounds` looks,
 * a few milliseconds apart, so that a process forking as fast as it can is still caught up with).
 */
export async function reapExec(exec: ExecProcesses, maxRounds = 200): Promise<void> {
  if (!canReap) return;
  const needle = Buffer.from(`${EXEC_MARKER_ENV}=${exec.marker}\0`);
  for (let round = 0; round < maxRounds; round++) {
    const procs = listProcs();
    const byPid = new Map(procs.map((proc) => [proc.pid, proc]));
    const roots = new Set<number>();
    for (const proc of procs) {
      if (proc.dead) continue;
      const tracked = exec.seen.get(proc.pid) === proc.start;
      if (proc.pid === exec.shellPid || proc.pgid === exec.shellPid || proc.sid === exec.shellPid || tracked || carriesMarker(proc.pid, needle)) {
        roots.add(proc.pid);
      }
    }
    const targets = new Set([...roots, ...descendantsOf(procs, roots)]);
    const alive = [...targets].filter((pid) => !byPid.get(pid)?.dead);
    if (alive.length === 0) return;
    for (const pid of alive) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await delay(round < 10 ? 2 : 10);
  }
}
