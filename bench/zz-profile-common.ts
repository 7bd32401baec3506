import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { commonQuery, skillCatalogue } from './lib/dataset.js';
import { seed } from './lib/seed.js';
import { startHearth } from './lib/processes.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'prof-'));
const server = await startHearth({ dataDir, databaseUrl: undefined }, {}, { wrapper: [], nodeFlags: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'], readyWithinMs: 20000 });
const seeded = await seed(server.baseUrl, skillCatalogue());
let n = 0;
const run = () => new Promise((resolve) => {
  const inst = autocannon({
    url: server.baseUrl, connections: 50, duration: Number(process.env.D ?? 8),
    requests: [{ setupRequest: (req: any) => ({ ...req, path: `/api/v1/skills?q=${encodeURIComponent(commonQuery(n++))}&limit=20`, headers: { authorization: `Bearer ${(seeded as any).masterToken ?? (seeded as any).token}` } }) }],
  }, (err: any, res: any) => resolve(res));
});
const res: any = await run();
console.log('rps', res.requests.average, 'non2xx', res.non2xx);
await server.stop();
console.log(readdirSync('/tmp/prof'));
