/** Linux: what tests read of processes in /proc. */
import { readFileSync } from 'node:fs';

/** The pids of a process's children (none where /proc does not say). */
export function childPids(pid: number = process.pid): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
