/**
 * Linux: how each exec is confined so that nothing it starts outlives it.
 *
 * Where the system allows it, a command runs as the first process of a PID namespace of its own
 * (util-linux `unshare --pid --fork --kill-child`). When that first process (the shell) exits,
 * or is killed at the timeout (`--kill-child`: when `unshare` dies, the shell is killed), the
 * kernel kills every other process of the namespace, whatever they did to hide: a new session,
 * a cleared environment, a double fork. No tracking can miss them.
 *
 * Creating a PID namespace needs CAP_SYS_ADMIN. A daemon run by root has it and creates the
 * namespace alone; any other user creates a user namespace first, mapping its own uid and gid
 * to themselves, so that the command sees the same `id -u` and `id -g` (supplementary groups
 * still apply to file access but show as the overflow group, and set-user-id programs such as
 * sudo do not gain privileges inside it). Unprivileged user namespaces may be turned off (a
 * sysctl, AppArmor) and `unshare` may be missing or too old: the daemon probes once, at its start
 * (main.ts logs the answer), and otherwise runs commands as before, ended
 * by their marker, group, session and descendants (daemon/reap.ts), which stays in use as a
 * second line of defence in both cases.
 */
import { spawn } from 'node:child_process';

export type Confinement =
  | { kind: 'pid-namespace'; /** The program and arguments that come before `/bin/sh -c cmd`. */ prefix: string[] }
  | { kind: 'none'; reason: string };

const PROBE_TIMEOUT_MS = 5000;

/** The ways to ask for a PID namespace, the most faithful first. */
function candidates(uid: number, gid: number): string[][] {
  const pid = ['--pid', '--fork', '--kill-child'];
  return [
    // root has CAP_SYS_ADMIN already: no user namespace, so root keeps every privilege it had.
    ...(uid === 0 ? [pid] : []),
    // util-linux 2.38 and later.
    ['--user', '--map-current-user', ...pid],
    // util-linux 2.36 and 2.37.
    ['--user', `--map-user=${uid}`, `--map-group=${gid}`, ...pid],
  ];
}

/** Runs a trivial command through `unshare flags`; resolves with what it printed, or undefined. */
function trial(flags: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn('unshare', [...flags, '--', '/bin/sh', '-c', 'echo "$$"; id -u; id -g'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? out : undefined);
    });
  });
}

/**
 * Finds how this system lets a command run in a PID namespace of its own, as the same user:
 * the shell must be the namespace's first process (pid 1) and see the daemon's uid and gid.
 */
export async function probeConfinement(): Promise<Confinement> {
  if (process.platform !== 'linux') return { kind: 'none', reason: `${process.platform} has no PID namespaces` };
  const uid = process.getuid!();
  const gid = process.getgid!();
  for (const flags of candidates(uid, gid)) {
    const out = await trial(flags);
    if (out === undefined) continue;
    if (out === `1\n${uid}\n${gid}\n`) return { kind: 'pid-namespace', prefix: ['unshare', ...flags, '--'] };
  }
  return {
    kind: 'none',
    reason: 'util-linux unshare could not create a PID namespace here (missing or older than 2.36, or user namespaces are turned off)',
  };
}

let current: Promise<Confinement> | undefined;

/** The confinement exec uses: probed once, unless chosen with useConfinement. */
export function execConfinement(): Promise<Confinement> {
  current ??= probeConfinement();
  return current;
}

/** Sets the confinement exec uses (the daemon's start, or a test of one of the two ways). */
export function useConfinement(confinement: Confinement): void {
  current = Promise.resolve(confinement);
}

/** One line for the daemon's log. */
export function describeConfinement(confinement: Confinement): string {
  return confinement.kind === 'pid-namespace'
    ? `exec confinement: a PID namespace per command (${confinement.prefix.slice(0, -1).join(' ')}); nothing a command starts outlives it`
    : `exec confinement: none (${confinement.reason}); what a command starts is tracked and ended by its marker, group, session and descendants`;
}
