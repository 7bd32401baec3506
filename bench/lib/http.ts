/**
 * Calls to Hearth's public HTTP API, as any client makes them: the bench seeds and checks its
 * data through the API only, never by writing to the database behind the server's back.
 */

export async function api<T = any>(baseUrl: string, method: string, url: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(baseUrl + url, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Registers a new owner and answers its master token. */
export async function registerOwner(baseUrl: string, name: string): Promise<string> {
  const res = await api(baseUrl, 'POST', '/api/v1/auth/register', {
    email: `${name}-${Date.now()}@example.test`,
    password: 'bench-password-1',
  });
  return res.data.token as string;
}

/**
 * Runs make(0) … make(count - 1), `concurrency` at a time, and answers the results in order.
 * Seeding thousands of rows one request after the other would take minutes; the server is
 * built to take concurrent writes, so the bench sends them that way.
 */
export async function inParallel<T>(count: number, concurrency: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await make(i);
      }
    }),
  );
  return results;
}
