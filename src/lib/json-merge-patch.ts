/** JSON Merge Patch (RFC 7396) and the checks a stored JSON document needs. */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Applies `patch` to `target` without changing either: objects merge recursively, null deletes
 * a key, anything else (arrays included) replaces. Keys are defined as own data properties so
 * that a key named `__proto__` stays a key and never reaches a prototype.
 */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else {
      const current = Object.hasOwn(result, key) ? result[key] : undefined;
      Object.defineProperty(result, key, { value: mergePatch(current, value), enumerable: true, writable: true, configurable: true });
    }
  }
  return result;
}

/**
 * Whether `value` nests objects or arrays deeper than `maxDepth`. Iterative, so a hostile body
 * nested thousands of levels deep cannot exhaust the stack here; callers refuse it before any
 * recursive step (merge, serialisation) sees it.
 */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
