/**
 * Times are stored as ISO 8601 UTC strings of fixed width (`toISOString`), on both engines.
 * Fixed width makes string comparison agree with time order, so indexes and `<` work.
 */
export function isoNow(): string {
  return new Date().toISOString();
}

export function isoIn(ms: number, from = Date.now()): string {
  return new Date(from + ms).toISOString();
}

export function isPast(iso: string | null | undefined, now = Date.now()): boolean {
  return iso != null && Date.parse(iso) <= now;
}
