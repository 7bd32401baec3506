/**
 * The daemon's own policy, enforced whatever the server asks: the privilege it was started
 * with, and the one folder (root) it may touch. Every path is resolved to its real location
 * (symbolic links followed, also for the parts that do not exist yet) before it is checked,
 * and the operation then runs on that resolved path, never on the string it was sent.
 */
import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { OP_PRIVILEGE, privilegeAllows, type DeviceErrorCode, type Op, type Privilege } from '../src/shared/afp.protocol.js';

export class DaemonError extends Error {
  constructor(
    readonly code: DeviceErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'DaemonError';
  }
}

export interface Policy {
  /** The real path of the root folder (symbolic links resolved). */
  root: string;
  privilege: Privilege;
}

/** Resolves the root once, at start: it must be an existing folder. */
export async function createPolicy(root: string, privilege: Privilege): Promise<Policy> {
  const resolved = path.resolve(root);
  let real: string;
  try {
    real = await realpath(resolved);
  } catch {
    throw new Error(`--root ${root} does not exist`);
  }
  if (!(await stat(real)).isDirectory()) throw new Error(`--root ${root} is not a folder`);
  return { root: real, privilege };
}

export function checkPrivilege(policy: Policy, op: Op): void {
  const needed = OP_PRIVILEGE[op];
  if (!privilegeAllows(policy.privilege, needed)) {
    throw new DaemonError(
      'FORBIDDEN',
      `This device's daemon runs with privilege "${policy.privilege}", and ${op} needs "${needed}". The device's owner can restart it with --privilege ${needed}`,
      { privilege: policy.privilege, needed },
    );
  }
}

/** Whether `candidate` (a resolved absolute path) is `root` itself or inside it. */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  if (relative === '') return true;
  // A different drive on Windows makes `relative` absolute.
  if (path.isAbsolute(relative)) return false;
  return relative !== '..' && !relative.startsWith(`..${path.sep}`);
}

const MAX_LINK_HOPS = 40;

/**
 * The real path of `target`, where a trailing part may not exist yet (a file about to be
 * written). Dangling symbolic links are followed by hand, so that a link to a missing file
 * outside the root cannot be used to create that file.
 */
async function realpathAllowingMissing(target: string, hops = 0): Promise<string> {
  try {
    return await realpath(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new DaemonError('INVALID', 'Too many levels of symbolic links');
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  let entry;
  try {
    entry = await lstat(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    // `target` does not exist: resolve its parent, then put the name back.
    const parent = path.dirname(target);
    if (parent === target) throw error;
    return path.join(await realpathAllowingMissing(parent, hops), path.basename(target));
  }
  if (!entry.isSymbolicLink()) {
    // It exists but a part of it is not a folder (ENOTDIR): nothing to follow.
    return path.join(await realpath(path.dirname(target)), path.basename(target));
  }
  if (hops >= MAX_LINK_HOPS) throw new DaemonError('INVALID', 'Too many levels of symbolic links');
  // A dangling link: its folder exists, so resolve the folder, then follow the link from there.
  const folder = await realpath(path.dirname(target));
  return realpathAllowingMissing(path.resolve(folder, await readlink(target)), hops + 1);
}

/**
 * Whether following `lexical` (inside the root as written) from the root leaves the root through
 * a symbolic link. Walked link by link with lstat and readlink only, so it answers where
 * realpath failed (a loop, a refusal of access) without touching anything past the first link
 * that leads out.
 */
async function leavesRoot(root: string, lexical: string): Promise<boolean> {
  const pending = path.relative(root, lexical).split(path.sep).filter(Boolean);
  let current = root;
  for (let hops = 0; pending.length > 0; ) {
    const next = path.join(current, pending.shift()!);
    let entry;
    try {
      entry = await lstat(next);
    } catch {
      return false;
    }
    if (!entry.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (++hops > MAX_LINK_HOPS) return false;
    const target = path.resolve(current, await readlink(next));
    if (!isInside(root, target)) return true;
    // Inside still: go on from the link's target, with the rest of the path after it.
    pending.unshift(...path.relative(root, target).split(path.sep).filter(Boolean));
    current = root;
  }
  return false;
}

/**
 * Resolves a path the server sent and refuses it unless it lies inside the root.
 * `..` is resolved first, by the text of the path; symbolic links are then followed.
 *
 * A refusal names only the path as it was sent and the root: never where a link led, nor what
 * the file system said on the way there (an error message carries the path it failed on), so
 * that a refusal cannot be used to explore the PC outside the root (`/proc/self/cwd`, a link
 * to a folder elsewhere).
 */
export async function resolveInside(policy: Policy, requested: string, what = 'path'): Promise<string> {
  if (typeof requested !== 'string' || requested === '') throw new DaemonError('INVALID', `${what} is required`);
  if (requested.includes('\0')) throw new DaemonError('INVALID', `${what} must not contain NUL characters`);
  if (!path.isAbsolute(requested)) {
    throw new DaemonError('INVALID', `${what} must be absolute (this device's root is ${policy.root})`, { root: policy.root });
  }
  const lexical = path.resolve(requested);
  const outside = () =>
    new DaemonError('FORBIDDEN', `${requested} is outside the folder this device's daemon may touch (${policy.root})`, { root: policy.root });
  let resolved: string;
  try {
    resolved = await realpathAllowingMissing(lexical);
  } catch (error) {
    // Where resolving failed may be outside the root: say nothing about it unless the path, as
    // sent and as its links lead, lies inside (then the failure is about the owner's own files).
    if (!isInside(policy.root, lexical) || (await leavesRoot(policy.root, lexical).catch(() => true))) throw outside();
    if (error instanceof DaemonError) throw new DaemonError(error.code, `${error.message} in ${requested}`);
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code === 'EACCES' || code === 'EPERM') throw new DaemonError('FORBIDDEN', `The operating system refused access to ${requested} (${code})`);
    throw new DaemonError('INTERNAL', `Could not resolve ${requested}: ${code ?? 'error'}`);
  }
  if (!isInside(policy.root, resolved)) throw outside();
  return resolved;
}
