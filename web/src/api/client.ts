import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];

/** The header the session binding travels in (the server's SESSION_BINDING_HEADER). */
export const SESSION_BINDING_HEADER = 'X-Hearth-Session-Binding';
const BINDING_KEY = 'hearth.sessionBinding';

/**
 * The session binding the sign-in answered. The session itself travels in an HttpOnly cookie,
 * but cookies are shared by every port of a host: a page on another port could set one of its
 * choosing. The server accepts the cookie only with this value, which this origin alone holds:
 * web storage is kept per origin, port included. Local storage, not session storage, so that a
 * second tab of the console is signed in as the first is; read at every request, so that a
 * sign-in or sign-out in one tab holds for all. Without the cookie it grants nothing.
 */
export function rememberSessionBinding(binding: string): void {
  try {
    localStorage.setItem(BINDING_KEY, binding);
  } catch {
    // Storage refused (a private window's quota): the session works in this page only until it closes.
    memoryBinding = binding;
  }
}

export function forgetSessionBinding(): void {
  memoryBinding = undefined;
  try {
    localStorage.removeItem(BINDING_KEY);
  } catch {
    // Nothing was stored.
  }
}

let memoryBinding: string | undefined;

/**
 * Whether this page holds a session binding: without one no cookie can act, so a signed-out page
 * need not ask the server (and be answered 401, which the browser prints in red) to know it.
 */
export function hasSessionBinding(): boolean {
  return SESSION_BINDING_HEADER in sessionHeaders();
}

/** The headers that let the session cookie act: none before sign-in. */
export function sessionHeaders(): Record<string, string> {
  let binding: string | null | undefined;
  try {
    binding = localStorage.getItem(BINDING_KEY);
  } catch {
    binding = undefined;
  }
  binding ??= memoryBinding;
  return binding ? { [SESSION_BINDING_HEADER]: binding } : {};
}

/**
 * The console's one way to the server: the public API, typed from its own OpenAPI document.
 * The session travels in an HttpOnly cookie the browser sends by itself on same-origin
 * requests, with the session binding beside it; no token is ever held by the page's script.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use({
  onRequest({ request }) {
    for (const [name, value] of Object.entries(sessionHeaders())) request.headers.set(name, value);
    return request;
  },
});

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
  if (answer.response.status === 401) signedOut();
  // A signed-in page whose account was disabled; a sign-in refused so simply shows the message.
  else if (error.code === ACCOUNT_DISABLED && hasSessionBinding()) signedOut(error.message);
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

/** An answer's text as JSON; undefined when it is empty or not JSON (a proxy's error page). */
function jsonOrNothing(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The error of an answer read without the typed client (a form sent with fetch, an upload with
 * its progress, a download), from its status and text; a 401 signs the page out, as `unwrap` does.
 */
export function answerError(status: number, statusText: string, text: string): ApiError {
  if (status === 401) signedOut();
  return apiError(status, statusText, jsonOrNothing(text));
}

/** The `data` of a successful answer read without the typed client; its error (`answerError`) thrown otherwise. */
export function answerData<T>(status: number, statusText: string, text: string): T {
  const body = status >= 200 && status < 300 ? jsonOrNothing(text) : undefined;
  if (body && typeof body === 'object' && 'data' in body) return (body as { data: T }).data;
  throw answerError(status, statusText, text);
}

/**
 * What every request of an account the administrator disabled is answered (403): the console
 * cannot act for it, so it goes back to the sign-in page and says why.
 */
export const ACCOUNT_DISABLED = 'ACCOUNT_DISABLED';

/**
 * The session is over (expired, revoked, signed out, or its cookie replaced): back to the
 * sign-in page, which shows `reason` when there is one to tell (the account was disabled).
 */
export function signedOut(reason?: string): void {
  forgetSessionBinding();
  window.dispatchEvent(new CustomEvent<string | undefined>('hearth:signed-out', { detail: reason }));
}

/** A thrown value as words for the page. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return 'The server could not be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : String(error);
}
