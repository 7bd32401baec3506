// @engine-independent: the console's API types come from the OpenAPI document, the same on either engine
/**
 * The console's API types (web/src/api/schema.d.ts) are generated from the served document and
 * committed, so the console type-checks against the API as it is. A route or field changed
 * without regenerating them fails here: run `npm run console:api-types`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_API_TYPES, consoleApiTypes } from '../scripts/console-api-types.js';
import { createTestApp, ENGINE, type TestApp } from './harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

// The document does not depend on the engine: checked once.
describe.runIf(ENGINE === 'sqlite')("the console's API types", () => {
  it('match the served OpenAPI document (regenerate with npm run console:api-types)', async () => {
    const document = (await t.request('GET', '/openapi.json')).body;
    expect(readFileSync(CONSOLE_API_TYPES, 'utf8') === (await consoleApiTypes(document)), 'web/src/api/schema.d.ts is behind the API: run npm run console:api-types').toBe(true);
  });
});
