/**
 * Linux: removes the token from what other processes of the same user can read of the daemon
 * without debugging it: /proc/<pid>/environ and /proc/<pid>/cmdline. Both show the blocks the
 * process was started with (the kernel reads them from the process's own memory), which
 * deleting from process.env does not change. So the token's bytes are overwritten in place,
 * through /proc/self/mem, where fields 48-51 of /proc/self/stat say the blocks lie; then both
 * files are read again to make sure.
 *
 * What stays readable to a process of the same user is listed in docs/decisions/remote-pcs.md:
 * the config file, the device key file, and the daemon's memory itself where the system
 * lets the same user debug (ptrace) its processes.
 */
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { procStatFields } from './procfs.js';

export type ScrubOutcome = 'scrubbed' | 'absent' | 'unsupported' | 'failed';

function blocks(): Array<[start: number, end: number]> {
  const fields = procStatFields('self') ?? [];
  // fields[0] is field 3 of proc(5): arg_start..env_end are fields 48-51.
  const field = (n: number) => Number(fields[n - 3]);
  const out: Array<[number, number]> = [];
  for (const [start, end] of [
    [field(48), field(49)],
    [field(50), field(51)],
  ] as const) {
    if (Number.isSafeInteger(start) && Number.isSafeInteger(end) && start > 0 && end > start && end - start < 16 * 1024 * 1024) out.push([start, end]);
  }
  return out;
}

function visible(secret: Buffer): boolean {
  return ['/proc/self/environ', '/proc/self/cmdline'].some((file) => {
    try {
      return readFileSync(file).includes(secret);
    } catch {
      return false;
    }
  });
}

/** Overwrites every copy of `secret` in this process's argument and environment blocks with `*`. */
export function scrubFromProcessBlocks(secret: string): ScrubOutcome {
  if (process.platform !== 'linux' || secret === '') return 'unsupported';
  const needle = Buffer.from(secret);
  try {
    if (!visible(needle)) return 'absent';
    const fd = openSync('/proc/self/mem', 'r+');
    try {
      for (const [start, end] of blocks()) {
        const block = Buffer.alloc(end - start);
        readSync(fd, block, 0, block.length, start);
        for (let at = block.indexOf(needle); at !== -1; at = block.indexOf(needle, at + needle.length)) {
          writeSync(fd, Buffer.alloc(needle.length, '*'), 0, needle.length, start + at);
        }
      }
    } finally {
      closeSync(fd);
    }
    return visible(needle) ? 'failed' : 'scrubbed';
  } catch {
    return 'failed';
  }
}
