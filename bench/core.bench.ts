/**
 * Platform-core benchmark: an authenticated GET /api/v1/tokens/me/capabilities against the
 * unauthenticated minimal route GET /api/v1/health, served by the same process in one run.
 * Goal: the authenticated route reaches at least 60% of the minimal route's requests/s (SQLite).
 * Run: npm run bench   (BENCH_DURATION and BENCH_CONNECTIONS adjust it)
 */
import { measure, registerOwner, report, startServer } from './lib.js';

const server = await startServer();
try {
  const token = await registerOwner(server.baseUrl);
  const minimal = await measure('GET /api/v1/health (no token)', `${server.baseUrl}/api/v1/health`);
  const capabilities = await measure('GET /api/v1/tokens/me/capabilities (bearer)', `${server.baseUrl}/api/v1/tokens/me/capabilities`, {
    authorization: `Bearer ${token}`,
  });
  const ok = report('Platform core', minimal, [{ m: capabilities, goalRatio: 0.6 }]);
  process.exitCode = ok ? 0 : 1;
} finally {
  await server.stop();
}
