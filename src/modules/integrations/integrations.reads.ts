/**
 * Which calls to a service only read. A read passes with `services:read` and is in no action
 * class; anything else needs `services:write` and is `services.write` under a token's policy.
 * A REST API reads with GET and HEAD. An RPC-style API (one path per method) may take writes over
 * GET, so the HTTP method says nothing there: only a GET or HEAD of a method the service declares
 * a read is one. Everything not declared a read is a write, POST included (RPC APIs that also
 * take reads over POST lose nothing: the read is there over GET).
 */
import type { ApiStyle } from '../vault/vault.schemas.js';

/** How a service's calls are told apart: its API style and, for RPC, its read methods. */
export interface ReadRule {
  apiStyle: ApiStyle;
  /** For rpc: the read methods, as paths after the base address without the leading slash. */
  readMethods: readonly string[];
}

export const REST: ReadRule = { apiStyle: 'rest', readMethods: [] };

const READ_VERBS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** Whether an HTTP method can be a read at all. */
export const readVerb = (method: unknown): boolean => typeof method === 'string' && READ_VERBS.has(method.toUpperCase());

/**
 * The method a call's path names for an RPC API: the path after the base address without its
 * query, fragment and one leading slash. Nothing is decoded or normalised: a spelling that is
 * not exactly a declared read (`conversations%2Elist`, `//chat.delete`, a trailing slash) is
 * not one, so it counts as a write, whatever the service makes of it.
 */
export function rpcMethodOf(path: string): string {
  const cut = path.search(/[?#]/);
  const bare = cut === -1 ? path : path.slice(0, cut);
  return bare.startsWith('/') ? bare.slice(1) : bare;
}

/** Whether the call `httpMethod path` (path relative to the base address) only reads. */
export function isReadCall(rule: ReadRule, httpMethod: string, path: string): boolean {
  if (!readVerb(httpMethod)) return false;
  if (rule.apiStyle !== 'rpc') return true;
  return rule.readMethods.includes(rpcMethodOf(path));
}
