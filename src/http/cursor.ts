import { AppError } from './errors.js';

/**
 * Page cursors for lists ordered by something other than the id alone: base64url of a JSON array
 * of the sort keys and the last id of the page. Opaque to clients; a cursor that does not decode
 * to what the list expects answers 400, never a 500 or a wrong page.
 */
export function encodeCursor(parts: ReadonlyArray<string | number>): string {
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
}

/** The parts of a cursor, or undefined when it is not one this server made. */
export function decodeCursor(cursor: string): unknown[] | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    return Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function invalidCursor(hint = 'pass the nextCursor of the previous page unchanged'): AppError {
  return new AppError('VALIDATION_ERROR', `Invalid request: querystring.cursor is not a cursor this list gave out; ${hint}`, {
    details: [{ field: 'querystring.cursor', message: hint }],
  });
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RECORD_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The cursor of a list ordered by a stored time, then id: the last row's time and id. */
export function encodeTimeCursor(time: string, id: string): string {
  return encodeCursor([time, id]);
}

export function decodeTimeCursor(cursor: string): { time: string; id: string } {
  const parts = decodeCursor(cursor);
  const [time, id] = parts ?? [];
  if (parts?.length !== 2 || typeof time !== 'string' || !ISO_TIME.test(time) || typeof id !== 'string' || !RECORD_ID.test(id)) {
    throw invalidCursor();
  }
  return { time, id };
}
