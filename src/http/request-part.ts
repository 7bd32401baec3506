import { AppError } from './errors.js';

export type RequestPart = 'body' | 'querystring' | 'params' | 'headers';

/**
 * Services name the fields of their errors in their own terms (`expiresAt`, `state`); only the
 * route knows where in the request a field came from. This answers `work`'s result, or its
 * AppError with each detail's field prefixed by that part (`body.expiresAt`), as request
 * validation names them.
 */
export async function inRequestPart<T>(part: RequestPart, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AppError) || !Array.isArray(error.details)) throw error;
    const details = error.details.map((detail: unknown) =>
      detail && typeof detail === 'object' && typeof (detail as { field?: unknown }).field === 'string'
        ? { ...detail, field: `${part}.${(detail as { field: string }).field}` }
        : detail,
    );
    throw new AppError(error.code, error.message, { status: error.status, details, headers: error.headers, cause: error });
  }
}
