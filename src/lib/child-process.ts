/**
 * What the server gives a child Node process it starts (a daemon build, a parsing worker): an
 * environment built from an allow-list, so that no secret of the server's (VAULT_KEY, database
 * addresses, client secrets…) reaches a process that runs untrusted input or outside tools, and
 * the tail of its stderr, kept bounded, to explain a failure.
 */
import type { Readable } from 'node:stream';

export interface EnvironmentAllowList {
  /** Variables kept, compared upper-cased (Windows names are case-insensitive). */
  names: readonly string[];
  /** Prefixes of variables kept, upper-cased (`NPM_` keeps `npm_config_registry`). */
  prefixes?: readonly string[];
}

/**
 * The allowed variables of `env`, and NODE_OPTIONS emptied: the child is a Node process and
 * must not inherit the server's flags (a heap size, a preloaded module) through it.
 */
export function childEnvironment(allow: EnvironmentAllowList, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const names = new Set(allow.names.map((name) => name.toUpperCase()));
  const prefixes = (allow.prefixes ?? []).map((prefix) => prefix.toUpperCase());
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (upper === 'NODE_OPTIONS') continue;
    if (names.has(upper) || prefixes.some((prefix) => upper.startsWith(prefix))) out[name] = value;
  }
  out.NODE_OPTIONS = '';
  return out;
}

/** Keeps the last `maxChars` characters written to `stream`; the answer reads them. */
export function streamTail(stream: Readable, maxChars: number): () => string {
  let tail = '';
  stream.on('data', (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-maxChars);
  });
  return () => tail;
}
