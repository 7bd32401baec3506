/**
 * Lets a promise fail without a trace, on purpose: the console's twin of the server's
 * src/lib/ignore-failure.ts (the linter refuses `.catch(() => undefined)`). `why` says why
 * dropping the failure is right, for the reader.
 */
export function ignoreFailure(promise: PromiseLike<unknown>, _why: string): Promise<void> {
  return Promise.resolve(promise).then(settled, settled);
}

function settled(): void {}
