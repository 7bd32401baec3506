import { describe, expect, it } from 'vitest';
import { generateTokenSecret, hashPassword, hashToken, isWellFormedToken, tokenHint, verifyPassword } from './crypto.js';

describe('token secrets', () => {
  it('have a readable prefix, 190 random bits and a checksum that verifies', () => {
    const secret = generateTokenSecret('api');
    expect(secret).toMatch(/^hth_pat_[0-9A-Za-z]{38}$/);
    expect(isWellFormedToken(secret)).toBe(true);
    expect(generateTokenSecret('api')).not.toBe(secret);
  });

  it('are refused when one character changes (checksum) or the shape is wrong', () => {
    const secret = generateTokenSecret('master');
    const last = secret.at(-1) === 'a' ? 'b' : 'a';
    expect(isWellFormedToken(secret.slice(0, -1) + last)).toBe(false);
    const bodyChar = secret[10] === 'a' ? 'b' : 'a';
    expect(isWellFormedToken(secret.slice(0, 10) + bodyChar + secret.slice(11))).toBe(false);
    expect(isWellFormedToken('hth_xxx_' + secret.slice(8))).toBe(false);
    expect(isWellFormedToken('')).toBe(false);
    expect(isWellFormedToken(secret + 'x')).toBe(false);
  });

  it('are stored as a SHA-256 hex digest and shown only as a hint', () => {
    const secret = generateTokenSecret('session');
    expect(hashToken(secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(secret)).not.toContain(secret.slice(8));
    const hint = tokenHint(secret);
    expect(hint.startsWith('hth_ses_')).toBe(true);
    expect(hint.endsWith(secret.slice(-4))).toBe(true);
    expect(hint.length).toBeLessThan(20);
  });
});

describe('passwords', () => {
  it('verify the right password and refuse a wrong one', async () => {
    const stored = await hashPassword('correct horse', 10);
    expect(stored).toMatch(/^scrypt\$10\$8\$1\$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsE', stored)).toBe(false);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
  });
});
