/**
 * Writes the console's API types (web/src/api/schema.d.ts) from the server's own OpenAPI
 * document, so the console can call only what the public API offers, with the API's own field
 * names and types. Run after changing a route: `npm run console:api-types`. A test fails while
 * the file is behind the document (test/console.api-types.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

export const CONSOLE_API_TYPES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../web/src/api/schema.d.ts');

const HEADER = `/**
 * Generated from the server's /openapi.json by \`npm run console:api-types\`; do not edit.
 * The console's only view of the API: a route or field missing here cannot be called.
 */
`;

/** The file's text for a document. */
export async function consoleApiTypes(document: unknown): Promise<string> {
  return HEADER + astToString(await openapiTS(document as never, { defaultNonNullable: false }));
}

async function main(): Promise<void> {
  // The document is built from the routes alone; any empty data folder serves to start the app.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-api-types-'));
  try {
    const { loadConfig } = await import('../src/config.js');
    const { createStorage } = await import('../src/storage/storage.js');
    const { createContainer } = await import('../src/container.js');
    const { buildApp } = await import('../src/app.js');
    const config = { ...loadConfig({}), dataDir, logLevel: 'silent' as const };
    const { createRootKeys } = await import('../src/modules/keyring/keyring.watch.js');
    const storage = await createStorage({ dataDir, rootKeys: createRootKeys({ dataDir }) });
    const app = await buildApp({ config, container: createContainer(config, storage) });
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as unknown;
    await app.close();
    writeFileSync(CONSOLE_API_TYPES, await consoleApiTypes(document));
    console.log(`Wrote ${path.relative(process.cwd(), CONSOLE_API_TYPES)}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
