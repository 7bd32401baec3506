/**
 * Lets a promise fail without a trace, on purpose. The linter refuses `.catch(() => undefined)`
 * and its equivalents, because a failure dropped that way hides a bug; where dropping it is the
 * intent (closing a connection that may already be closed, a best-effort cleanup whose failure
 * the next run repairs), this says so, and `why` says why, for the reader.
 *
 * The answer settles when `promise` does, never rejecting, so it can still be awaited.
 */
export function ignoreFailure(promise: PromiseLike<unknown>, _why: string): Promise<void> {
  return Promise.resolve(promise).then(settled, settled);
}

function settled(): void {}
