/**
 * Gateway-context benchmark: one owner with 1,000 memory entries, 100 knowledge-base documents,
 * an active persona with attachments and a few active skills; GET /api/v1/gateway/context with
 * the master token (every section) against the unauthenticated minimal route GET /api/v1/health,
 * served by the same process in one run. Goal: at least 25% of the minimal route's requests/s.
 * Run: npx tsx bench/gateway.bench.ts   (BENCH_DURATION and BENCH_CONNECTIONS adjust it)
 */
import { api, measure, registerOwner, report, startServer } from './lib.js';

const MEMORY_ENTRIES = 1_000;
const DOCUMENTS = 100;
const SEED_CONCURRENCY = 20;

async function inBatches<T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < count; start += SEED_CONCURRENCY) {
    const batch = Array.from({ length: Math.min(SEED_CONCURRENCY, count - start) }, (_, k) => make(start + k));
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

const server = await startServer();
try {
  const base = server.baseUrl;
  const token = await registerOwner(base);
  await inBatches(MEMORY_ENTRIES, (i) =>
    api(base, 'POST', '/api/v1/memory', { content: `Memory ${i}: the owner mentioned a preference about topic ${i % 37} and project ${i % 11}.` }, token),
  );
  const documents = await inBatches(DOCUMENTS, (i) =>
    api(base, 'POST', '/api/v1/brain/knowledge-base', { title: `Document ${i}`, content: `Notes ${i}. `.repeat(200) }, token),
  );
  const skills = await inBatches(5, (i) => api(base, 'POST', '/api/v1/skills', { name: `skill-${i}`, description: `Skill number ${i}` }, token));
  for (const skill of skills) await api(base, 'POST', `/api/v1/skills/${skill.data.id}/activate`, undefined, token);
  const persona = await api(base, 'POST', '/api/v1/personas', { name: 'Assistant', soul_content: 'Be brief and kind. '.repeat(20) }, token);
  await api(base, 'POST', `/api/v1/personas/${persona.data.id}/activate`, undefined, token);
  for (const doc of documents.slice(0, 3)) {
    await api(base, 'POST', `/api/v1/personas/${persona.data.id}/documents`, { documentId: doc.data.id }, token);
  }
  await api(base, 'PUT', '/api/v1/identity', { bio: 'Builds things.', professional: { title: 'Engineer' }, availability: { timezone: 'UTC' } }, token);

  const sample = await api(base, 'GET', '/api/v1/gateway/context', undefined, token);
  const bytes = Buffer.byteLength(JSON.stringify(sample));
  console.log(`context: ${Object.keys(sample.data).join(', ')}; ${sample.data.memory.entries.length} of ${sample.data.memory.total} memory entries; ${bytes} bytes`);

  const minimal = await measure('GET /api/v1/health (no token)', `${base}/api/v1/health`);
  const context = await measure('GET /api/v1/gateway/context (master token, every section)', `${base}/api/v1/gateway/context`, {
    authorization: `Bearer ${token}`,
  });
  const ok = report('Gateway context', minimal, [{ m: context, goalRatio: 0.25 }]);
  process.exitCode = ok ? 0 : 1;
} finally {
  await server.stop();
}
