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
 * What a request held by a token's policy for the owner's approval answers (202). The console
 * acts with the owner's session, which no policy holds: such an answer is not a result.
 */
type HeldForApproval = Schemas['ApprovalPending'];

/**
 * The body of a successful answer, or an ApiError carrying the API's own message (which says
 * what is wrong and how to fix it, so the console shows it as it is).
 */
export function unwrap<T>(answer: Answer<T>): Exclude<T, HeldForApproval> {
  if (answer.response.status === 202) throw new ApiError(202, 'APPROVAL_PENDING', 'The request waits for the owner\'s approval; see Approvals.');
  if (answer.response.ok && answer.data !== undefined) return answer.data as Exclude<T, HeldForApproval>;
  if (answer.response.ok) return undefined as Exclude<T, HeldForApproval>;
  const error = apiError(answer.response.status, answer.response.statusText, answer.error);
  if (answer.response.status === 401) window.dispatchEvent(new CustomEvent('hearth:signed-out'));
  throw error;
}

/**
 * An error answer's body as an ApiError. The API answers `{ error: "<CODE>", message, details? }`;
 * a body of another shape (a proxy's page, nothing at all) still gives a sentence with the status.
 */
export function apiError(status: number, statusText: string, body: unknown): ApiError {
  const shaped = typeof body === 'object' && body !== null ? (body as { error?: unknown; message?: unknown; details?: unknown }) : {};
  return new ApiError(
    status,
    typeof shaped.error === 'string' ? shaped.error : 'HTTP_' + status,
    typeof shaped.message === 'string' && shaped.message ? shaped.message : `The server answered ${status} ${statusText}`.trim(),
    shaped.details,
  );
}

/** A thrown value as words for the page. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return 'The server could not be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : String(error);
}
