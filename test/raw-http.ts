/**
 * A request sent on a real socket, its path exactly as given: an injected request is normalised
 * like a URL, while a client on the wire may send `%2e%2e` or `..;` untouched.
 */
import { request as httpRequest } from 'node:http';

/** GET `path` from the app listening at `address` (what `app.listen` answered). */
export function rawGet(address: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(address);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends `method` `path` with a JSON `body` (none when undefined) to the app listening at `address`, the path exactly as given. */
export function rawJson(address: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(address);
  const payload = body === undefined ? '' : JSON.stringify(body);
  const typed = body === undefined ? {} : { 'content-type': 'application/json' };
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, path, method, headers: { ...typed, 'content-length': String(Buffer.byteLength(payload)), ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
