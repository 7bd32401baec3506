/** Linux: what tests read of processes in /proc. */
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** The pids of a process's children (none where /proc does not say). */
export function childPids(pid: number = process.pid): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Alive and not a zombie waiting for a parent to reap it. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Live processes other than this one whose command line holds `text`, as `pid: command line`
 * (pids inside a PID namespace differ from these). None where there is no /proc.
 */
export function survivors(text: string): string[] {
  if (process.platform !== 'linux') return [];
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid || !alive(Number(name))) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(text)) found.push(`${name}: ${cmdline}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Ends what a test left running, when the confinement it checks did not. */
export function killSurvivors(text: string): void {
  for (const line of survivors(text)) {
    try {
      process.kill(Number(line.split(':')[0]), 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * Whether this system lets this user run a command in a PID namespace of its own, found
 * without the daemon's probe (daemon/confine.ts) so that a probe that wrongly gives up is seen.
 */
export const namespacesAvailable =
  process.platform === 'linux' &&
  [
    ['--pid', '--fork'],
    ['--user', '--map-current-user', '--pid', '--fork'],
    ['--user', `--map-user=${process.getuid!()}`, `--map-group=${process.getgid!()}`, '--pid', '--fork'],
  ].some((flags) => spawnSync('unshare', [...flags, '--', 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0);

/** A sleep duration no other process on this machine has: how a command's processes are found in /proc. */
export function uniqueSleep(): string {
  return `300.${randomInt(100_000, 999_999)}`;
}
