import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];

/**
 * The console's one way to the server: the public API, typed from its own OpenAPI document.
 * The session travels in an HttpOnly cookie the browser sends by itself on same-origin
 * requests; no token is ever held by the page's script or written to web storage.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

/** An error answer of the API, with its code and the words it came with. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * The body of a successful answer, or an ApiError carrying the API's own message (which says
 * what is wrong and how to fix it, so the console shows it as it is).
 */
export function unwrap<T>(answer: Answer<T>): T {
  if (answer.response.ok && answer.data !== undefined) return answer.data;
  if (answer.response.ok) return undefined as T;
  // The API's error shape: { error: CODE, message, details? } (ErrorResponse).
  const body = answer.error as Partial<Schemas['ErrorResponse']> | undefined;
  const error = new ApiError(
    answer.response.status,
    typeof body?.error === 'string' ? body.error : `HTTP_${answer.response.status}`,
    typeof body?.message === 'string' ? body.message : `The server answered ${answer.response.status} ${answer.response.statusText}`,
    body?.details,
  );
  if (answer.response.status === 401) window.dispatchEvent(new CustomEvent('hearth:signed-out'));
  throw error;
}

/** A thrown value as words for the page. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return 'The server could not be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : String(error);
}
