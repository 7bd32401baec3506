/** What every phase of API discovery shares: reading untrusted JSON and judging a fetched response. */
import type { OutboundResponse } from '../../http/outbound.js';

export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A non-blank string, trimmed; anything else (a number, an object, blanks) counts as absent. */
export const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** A title or description as shown: whitespace flattened, at most `max` characters. */
export function clip(text: string | undefined, max: number): string | null {
  if (!text) return null;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function ok(response: OutboundResponse | undefined): response is OutboundResponse {
  return response !== undefined && response.status >= 200 && response.status < 300;
}

/** Sites answer a missing document with their HTML page (often with 200): such a body is no document. */
export function looksLikeHtml(response: OutboundResponse): boolean {
  return /html/i.test(response.headers['content-type'] ?? '') || /^\s*</.test(response.body.subarray(0, 512).toString('utf8'));
}

/** A title and a description read from a document other than OpenAPI (llms.txt, the page). */
export interface SiteMeta {
  title?: string;
  description?: string;
}
