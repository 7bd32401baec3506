// @engine-independent: the PC daemon's own code; no server, no database
/**
 * The daemon's own policy, without a server: privilege levels, path resolution (.., absolute
 * paths, symbolic links, dangling links, loops) and the root's protection.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPrivilege, createPolicy, DaemonError, isInside, resolveInside, type Policy } from './policy.js';

let base: string;
let root: string;
let outside: string;
let policy: Policy;

async function refusal(work: Promise<unknown> | (() => unknown)): Promise<DaemonError> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    if (error instanceof DaemonError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'hearth-afp-policy-'));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  mkdirSync(path.join(root, 'docs'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(root, 'docs', 'a.txt'), 'a');
  writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  symlinkSync(outside, path.join(root, 'out-dir'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'out-file'));
  symlinkSync(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling-out'));
  symlinkSync(path.join(root, 'docs', 'later.txt'), path.join(root, 'dangling-in'));
  symlinkSync(path.join(root, 'docs'), path.join(root, 'docs-link'));
  symlinkSync('../outside/secret.txt', path.join(root, 'relative-out'));
  symlinkSync(path.join(root, 'loop-b'), path.join(root, 'loop-a'));
  symlinkSync(path.join(root, 'loop-a'), path.join(root, 'loop-b'));
  // A loop outside, reached through a link inside: resolving fails out there.
  symlinkSync(path.join(outside, 'loop'), path.join(outside, 'loop'));
  symlinkSync(path.join(root, 'docs-link', '..', 'out-dir'), path.join(root, 'via-docs'));
  // A sibling whose name starts like the root's: a prefix test would let it through.
  mkdirSync(`${root}2`);
  policy = await createPolicy(root, 'write');
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('createPolicy', () => {
  it('resolves the root to its real path', async () => {
    symlinkSync(root, path.join(base, 'root-link'));
    const linked = await createPolicy(path.join(base, 'root-link'), 'read');
    expect(linked.root).toBe(policy.root);
  });

  it('refuses a root that does not exist or is a file', async () => {
    await expect(createPolicy(path.join(base, 'nope'), 'read')).rejects.toThrow(/does not exist/);
    await expect(createPolicy(path.join(root, 'docs', 'a.txt'), 'read')).rejects.toThrow(/not a folder/);
  });
});

describe('privilege', () => {
  const at = (privilege: Policy['privilege']) => ({ root: '/', privilege });

  it('read allows ls, read and stat only', async () => {
    for (const op of ['ls', 'read', 'stat'] as const) expect(() => checkPrivilege(at('read'), op)).not.toThrow();
    for (const op of ['write', 'mkdir', 'rm', 'exec'] as const) {
      const error = await refusal(() => checkPrivilege(at('read'), op));
      expect(error.code).toBe('FORBIDDEN');
      expect(error.message).toContain('"read"');
    }
  });

  it('write adds write, mkdir and rm, not exec', async () => {
    for (const op of ['ls', 'read', 'stat', 'write', 'mkdir', 'rm'] as const) expect(() => checkPrivilege(at('write'), op)).not.toThrow();
    expect((await refusal(() => checkPrivilege(at('write'), 'exec'))).message).toContain('--privilege exec');
  });

  it('exec allows everything', () => {
    for (const op of ['ls', 'read', 'stat', 'write', 'mkdir', 'rm', 'exec'] as const) expect(() => checkPrivilege(at('exec'), op)).not.toThrow();
  });
});

describe('isInside', () => {
  it('is true for the root and below, false for parents, siblings and prefixes', () => {
    expect(isInside('/data/root', '/data/root')).toBe(true);
    expect(isInside('/data/root', '/data/root/a/b')).toBe(true);
    expect(isInside('/data/root', '/data/root/..hidden')).toBe(true);
    expect(isInside('/data/root', '/data')).toBe(false);
    expect(isInside('/data/root', '/data/root2/a')).toBe(false);
    expect(isInside('/data/root', '/etc/passwd')).toBe(false);
  });
});

describe('resolveInside', () => {
  it('answers existing and not-yet-existing paths inside the root', async () => {
    expect(await resolveInside(policy, path.join(root, 'docs', 'a.txt'))).toBe(path.join(policy.root, 'docs', 'a.txt'));
    expect(await resolveInside(policy, path.join(root, 'new', 'deeper', 'file.txt'))).toBe(path.join(policy.root, 'new', 'deeper', 'file.txt'));
    expect(await resolveInside(policy, root)).toBe(policy.root);
  });

  it('follows links that stay inside, to where they point', async () => {
    expect(await resolveInside(policy, path.join(root, 'docs-link', 'a.txt'))).toBe(path.join(policy.root, 'docs', 'a.txt'));
    expect(await resolveInside(policy, path.join(root, 'dangling-in'))).toBe(path.join(policy.root, 'docs', 'later.txt'));
  });

  it('refuses relative paths and NUL characters', async () => {
    expect((await refusal(resolveInside(policy, 'docs/a.txt'))).code).toBe('INVALID');
    expect((await refusal(resolveInside(policy, `${root}/a\0b`))).code).toBe('INVALID');
  });

  it('refuses escapes with ..', async () => {
    for (const escape of [path.join(root, '..', 'outside', 'secret.txt'), `${root}/docs/../../outside`, `${root}/..`]) {
      const error = await refusal(resolveInside(policy, escape));
      expect(error.code).toBe('FORBIDDEN');
      expect(error.message).toContain('outside the folder');
    }
  });

  it('refuses absolute paths outside, including a sibling sharing the prefix', async () => {
    for (const escape of ['/etc/passwd', outside, `${root}2`, '/']) {
      expect((await refusal(resolveInside(policy, escape))).code).toBe('FORBIDDEN');
    }
  });

  it('refuses symbolic links pointing out: to a folder, a file, a relative target, or a file yet to exist', async () => {
    for (const name of ['out-dir', 'out-file', 'relative-out', 'dangling-out', 'out-dir/secret.txt', 'out-dir/new-file.txt']) {
      const error = await refusal(resolveInside(policy, path.join(root, name)));
      expect(error.code, name).toBe('FORBIDDEN');
    }
  });

  it('security: a refusal names the path as sent and the root, never where a link led', async () => {
    const cases = [
      [path.join(root, 'out-dir', 'secret.txt'), outside],
      [path.join(root, 'out-file'), outside],
      [path.join(root, 'relative-out'), outside],
      [path.join(root, 'dangling-out'), outside],
      ['/proc/self/cwd', process.cwd()],
      ['/proc/self/root/etc', '/etc'],
    ] as const;
    for (const [requested, target] of cases) {
      const error = await refusal(resolveInside(policy, requested));
      expect(error.code, requested).toBe('FORBIDDEN');
      expect(error.message).toBe(`${requested} is outside the folder this device's daemon may touch (${policy.root})`);
      expect(error.message.replace(requested, '').replace(policy.root, '')).not.toContain(target);
      expect(JSON.stringify(error.details)).not.toContain(target);
    }
  });

  it('refuses a link loop', async () => {
    expect((await refusal(resolveInside(policy, path.join(root, 'loop-a', 'x')))).code).toBe('INVALID');
  });

  it('security: a failure to resolve past a link that leads out reads as outside, telling nothing of what is there', async () => {
    for (const requested of [path.join(root, 'out-dir', 'loop', 'x'), path.join(root, 'via-docs', 'loop')]) {
      const error = await refusal(resolveInside(policy, requested));
      expect(error.message, requested).toBe(`${requested} is outside the folder this device's daemon may touch (${policy.root})`);
    }
  });
});
