// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { findHearthToken, generateTokenSecret, hashPassword, hashToken, isWellFormedToken, maskHearthTokens, tokenHint, verifyPassword } from './crypto.js';

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

describe('finding and masking tokens in text', () => {
  const secret = generateTokenSecret('api');
  const random = secret.slice('hth_pat_'.length);
  const encodeAll = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');

  it('finds every kind, plainly or percent-encoded (any character, any number of times, either case of hex)', () => {
    for (const kind of ['master', 'session', 'api', 'handshake'] as const) {
      const token = generateTokenSecret(kind);
      expect(findHearthToken(`x ${token} y`)).toBe(token);
    }
    for (const spelling of [
      secret.replace(/_/g, '%5F'),
      secret.replace(/_/g, '%5f'),
      `%68${secret.slice(1)}`,
      `%2568${secret.slice(1)}`,
      secret.replace(/_/g, '%25255F'),
      encodeAll(secret),
      encodeAll(secret).replace(/%/g, '%25'),
      `hth_%70%61%74_${random}`,
    ]) {
      expect(findHearthToken(`?a=${spelling}&b=1`), spelling).toBe(spelling);
      expect(maskHearthTokens(`?a=${spelling}&b=1`), spelling).toBe('?a=hth_pat_[REDACTED]&b=1');
    }
  });

  it('a truncated token still counts; prose, other kinds and short look-alikes do not', () => {
    expect(maskHearthTokens(`hth_mst_${random.slice(0, 16)}`)).toBe('hth_mst_[REDACTED]');
    for (const text of ['tokens look like hth_pat_…', 'hth_pat_0123456789abcde', `hth_xyz_${random}`, 'hth_ is a prefix', `hth-pat-${random}`]) {
      expect(findHearthToken(text), text).toBeUndefined();
      expect(maskHearthTokens(text)).toBe(text);
    }
  });

  it('masks every token of a text and keeps the rest', () => {
    const other = generateTokenSecret('session');
    expect(maskHearthTokens(`a=${secret}; b=${other.replace(/_/g, '%5F')}.`)).toBe('a=hth_pat_[REDACTED]; b=hth_ses_[REDACTED].');
  });
});
