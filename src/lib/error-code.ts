/**
 * The system error code of an error (`ENOENT`, `EACCES`, `ECONNREFUSED`…), or undefined. Connecting
 * to a name with several addresses fails with an AggregateError of each attempt: the first inner
 * code then stands for it.
 */
export function errorCodeOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: Array<{ code?: unknown }> } | null | undefined;
  if (typeof e?.code === 'string') return e.code;
  const inner = Array.isArray(e?.errors) ? e.errors.find((x) => typeof x?.code === 'string')?.code : undefined;
  return typeof inner === 'string' ? inner : undefined;
}

/** What to show of an error in a one-line message: its code, else its message. */
export function errorCodeOrMessage(error: unknown): string {
  return errorCodeOf(error) ?? (error instanceof Error ? error.message : String(error));
}
