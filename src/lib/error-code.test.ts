// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { errorCodeOf, errorCodeOrMessage } from './error-code.js';

describe('errorCodeOf', () => {
  it("answers a system error's code, or the first inner code of an AggregateError", () => {
    expect(errorCodeOf(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe('ENOENT');
    const aggregate = new AggregateError([new Error('no code'), Object.assign(new Error('y'), { code: 'ECONNREFUSED' })], 'all failed');
    expect(errorCodeOf(aggregate)).toBe('ECONNREFUSED');
  });

  it('answers undefined for anything without a string code', () => {
    for (const error of [new Error('plain'), Object.assign(new Error('n'), { code: 5 }), undefined, null, 'text', { errors: 'not a list' }]) {
      expect(errorCodeOf(error)).toBeUndefined();
    }
  });

  it('errorCodeOrMessage falls back to the message, then the value', () => {
    expect(errorCodeOrMessage(Object.assign(new Error('x'), { code: 'EACCES' }))).toBe('EACCES');
    expect(errorCodeOrMessage(new Error('disk on fire'))).toBe('disk on fire');
    expect(errorCodeOrMessage('odd')).toBe('odd');
  });
});
