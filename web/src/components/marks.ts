/**
 * A hit's `marks` as the typed client hands them over (each a [start, end) pair; the client's
 * types lose the pair's length, so each is read as a list).
 */
export type Marks = ReadonlyArray<ReadonlyArray<number>>;

/**
 * The spans to mark in a text of `length` code units: the API's `marks` ([start, end), UTF-16),
 * kept to the text, in order, overlapping or touching ones joined. A span out of range or empty
 * is dropped rather than trusted, so that a wrong offset can only mark less, never break the text.
 */
export function markSpans(marks: Marks, length: number): Array<[number, number]> {
  const spans = marks
    .map(([start = NaN, end = NaN]): [number, number] => [Math.max(0, Math.min(start, length)), Math.max(0, Math.min(end, length))])
    .filter(([start, end]) => Number.isInteger(start) && Number.isInteger(end) && start < end)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const joined: Array<[number, number]> = [];
  for (const span of spans) {
    const last = joined[joined.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else joined.push([span[0], span[1]]);
  }
  return joined;
}
