/**
 * Seeds a store with the bench's data set and leaves it, for profiling one route by hand:
 *   DATA_DIR=<folder> npx tsx bench/seed-store.ts > seeded.json
 * starts the compiled server on DATA_DIR (SQLite; DATABASE_URL for PostgreSQL), fills it as
 * the bench does, prints the tokens and slug as JSON, and stops the server. Words only, as the
 * bench's seeded server runs, unless EMBEDDINGS says otherwise.
 */
import { mkdirSync } from 'node:fs';
import { skillCatalogue } from './lib/dataset.js';
import { buildServer, startHearth, WORDS_ONLY } from './lib/processes.js';
import { seed } from './lib/seed.js';

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR must name the folder to seed');
mkdirSync(dataDir, { recursive: true });
buildServer();
const server = await startHearth({ dataDir, databaseUrl: process.env.DATABASE_URL || undefined }, process.env.EMBEDDINGS ? {} : WORDS_ONLY);
try {
  const seeded = await seed(server.baseUrl, skillCatalogue());
  process.stdout.write(`${JSON.stringify(seeded)}\n`);
} finally {
  await server.stop();
}
