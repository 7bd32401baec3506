/**
 * Times are stored as ISO 8601 UTC strings of fixed width (`toISOString`), on both engines.
 * Fixed width makes string comparison agree with time order, so indexes and `<` work.
 */

/**
 * isoNow's last answer and its millisecond. A write takes the time more than once, and many
 * requests share a millisecond under load; formatting a date was over 1% of a write's CPU.
 */
let lastNow = Number.NaN;
let lastIso = '';

export function isoNow(): string {
  const now = Date.now();
  if (now !== lastNow) {
    lastNow = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

let lastOrdered = 0;

/**
 * Like isoNow, but later than every time it answered before in this process: for rows listed in
 * the order they were made, by a time of millisecond resolution (a persona's documents and
 * skills), two made within one millisecond keep their order instead of falling back on their
 * ids. A burst runs ahead of the clock by at most one millisecond per row.
 */
export function isoNowOrdered(): string {
  lastOrdered = Math.max(Date.now(), lastOrdered + 1);
  return new Date(lastOrdered).toISOString();
}

export function isoIn(ms: number, from = Date.now()): string {
  return new Date(from + ms).toISOString();
}

export function isPast(iso: string | null | undefined, now = Date.now()): boolean {
  return iso != null && Date.parse(iso) <= now;
}
