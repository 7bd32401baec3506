/**
 * Linux: the fields of /proc/<pid>/stat (proc(5)), read by the reaper (daemon/reap.ts) and the
 * token scrub (daemon/scrub.ts).
 */
import { readFileSync } from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after the command name: index 0 is field 3 of proc(5) (the
 * state), so field n is at n - 3. Undefined when the process is gone or /proc is not there.
 */
export function procStatFields(pid: number | 'self'): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The name in parentheses may itself hold spaces and parentheses: the fields follow the last ')'.
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}
