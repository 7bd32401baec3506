/**
 * The search rows' work without HTTP sockets or a load client: the app built in this process on a
 * store seeded by bench/seed-store.ts, and N different questions answered one after another
 * through `app.inject`, timed by this process's CPU. Steadier than the HTTP rows on a shared
 * machine, and `node --cpu-prof` of this process shows the search alone:
 *   DATA_DIR=<folder> npx tsx bench/search.inprocess.ts [search|common|health] [requests = 2000]
 *   DATA_DIR=<folder> node --cpu-prof --import tsx bench/search.inprocess.ts search
 * `health` measures what inject itself costs a request, to subtract.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { commonQuery } from './lib/dataset.js';
import { ownerQuestion } from './lib/notes.js';
import type { Seeded } from './lib/seed.js';

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR must name a folder seeded by bench/seed-store.ts');
const seeded = JSON.parse(readFileSync(path.join(dataDir, 'seeded.json'), 'utf8')) as Seeded;
const row = process.argv[2] ?? 'search';
const requests = Number(process.argv[3] ?? 2_000);
process.env.EMBEDDINGS = 'off';
process.env.LOG_LEVEL = 'warn';
process.env.NODE_ENV = 'production';

const { loadConfig } = await import('../src/config.js');
const { openStorage } = await import('../src/storage/storage.js');
const { createRootKeys } = await import('../src/modules/keyring/keyring.watch.js');
const { createContainer } = await import('../src/container.js');
const { buildApp } = await import('../src/app.js');

const config = loadConfig();
const rootKeys = createRootKeys({ dataDir: config.dataDir, vaultKey: config.vaultKey, previousKeys: config.vaultPreviousKeys });
const storage = await openStorage({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, nodeHeartbeatMs: config.clusterHeartbeatMs, rootKeys });
const container = createContainer(config, storage, { rootKeys });
await storage.ready;
await container.keyring.ready();
const app = await buildApp({ config, container });
await app.ready();

const headers = { authorization: `Bearer ${seeded.masterToken}` };
const url = (k: number): string =>
  row === 'common'
    ? `/api/v1/skills?q=${encodeURIComponent(commonQuery(k))}&limit=20`
    : row === 'health'
      ? '/api/v1/health'
      : `/api/v1/search?q=${encodeURIComponent(ownerQuestion(k))}&types=${process.env.TYPES ?? 'memory,knowledge'}`;
let bytes = 0;
const run = async (from: number, n: number): Promise<void> => {
  for (let k = from; k < from + n; k++) {
    const res = await app.inject({ method: 'GET', url: url(k), headers });
    if (res.statusCode !== 200) throw new Error(`${url(k)} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    bytes += res.body.length;
  }
};
// Warm-up on other questions: the index is built and the code compiled before timing.
await run(500_000, Math.min(500, requests));
const times: number[] = [];
for (let round = 0; round < 3; round++) {
  bytes = 0;
  const cpu = process.cpuUsage();
  await run(round * requests, requests);
  const used = process.cpuUsage(cpu);
  times.push((used.user + used.system) / requests);
}
times.sort((a, b) => a - b);
console.log(`${row}: ${requests} requests a round, 3 rounds: median ${times[1]!.toFixed(0)} µs of CPU a request (best ${times[0]!.toFixed(0)}, worst ${times[2]!.toFixed(0)}), ${(bytes / requests).toFixed(0)} bytes an answer`);
await app.close();
