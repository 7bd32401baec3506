/** Helpers for the authorization server's tests: an app listening where its public address says, and PKCE. */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { createTestApp, type TestApp, type TestAppOptions } from './harness.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A test app listening on a free loopback port that is also its PUBLIC_BASE_URL: every address
 * in the authorization metadata is built from it, so it must be where the app listens.
 */
export async function startPublicApp(config: TestAppOptions['config'] = {}): Promise<{ t: TestApp; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ config: { ...config, publicBaseUrl: base } });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, base };
}

/** A PKCE pair (RFC 7636, S256): the verifier the client keeps, the challenge it sends. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
