// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { decodeCursor, decodeTimeCursor, encodeCursor, encodeTimeCursor } from './cursor.js';

describe('page cursors', () => {
  it('round-trip their parts and stay URL-safe', () => {
    const cursor = encodeCursor(['rating', 4_500_000, 12, 'mkt_01ABC']);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(['rating', 4_500_000, 12, 'mkt_01ABC']);
    const time = '2026-11-21T10:00:00.000Z';
    expect(decodeTimeCursor(encodeTimeCursor(time, 'hs_x-Y_1'))).toEqual({ time, id: 'hs_x-Y_1' });
  });

  it.each([
    ['not base64 json!'],
    [Buffer.from('{"a":1}').toString('base64url')],
    [encodeCursor(['2026-11-21T10:00:00.000Z'])],
    [encodeCursor(['yesterday', 'id_1'])],
    [encodeCursor(['2026-11-21T10:00:00.000Z', 'id with space'])],
    [encodeCursor(['2026-11-21T10:00:00.000Z', 'id_1', 'extra'])],
    [encodeCursor([5, 'id_1'])],
  ])('refuses %s as a time cursor with 400 VALIDATION_ERROR naming the field', (cursor) => {
    const error = (() => {
      try {
        decodeTimeCursor(cursor);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('VALIDATION_ERROR');
    expect((error as AppError).details).toEqual([{ field: 'querystring.cursor', message: expect.any(String) }]);
  });
});
