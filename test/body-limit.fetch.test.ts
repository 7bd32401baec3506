/**
 * A client using fetch (undici) that sends a body far over the limit reads the 413, instead of
 * the connection reset (EPIPE) it got when the server answered and closed mid-upload. The
 * client runs in its own process, as a real one does: in-process, the client's writes and the
 * server's reads take turns on one event loop and the race never shows.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type Owner, type TestApp } from './harness.js';

let t: TestApp;
let owner: Owner;
let address: string;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner();
  address = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
});

const CLIENT = `
const [url, token, attempts, size] = process.argv.slice(1);
const body = JSON.stringify({ content: 'x'.repeat(Number(size)) });
const results = [];
for (let i = 0; i < Number(attempts); i++) {
  try {
    const res = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body });
    const answer = await res.json();
    results.push(res.status + ' ' + answer.error);
  } catch (e) {
    results.push('failed ' + (e.cause?.code ?? e.message));
  }
}
console.log(JSON.stringify(results));
`;

function runClient(url: string, attempts: number, size: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', CLIENT, url, owner.token, String(attempts), String(size)],
      { timeout: 60_000, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as string[])),
    );
  });
}

it('fetch sending 20 MB to a 1 MiB route reads 413 PAYLOAD_TOO_LARGE every time', async () => {
  expect(t.config.bodyLimit).toBe(1024 * 1024);
  const results = await runClient(`${address}/api/v1/memory`, 10, 20_000_000);
  expect(results).toEqual(Array(10).fill('413 PAYLOAD_TOO_LARGE'));
  // The server still serves the same client afterwards.
  const after = await fetch(`${address}/api/v1/memory`, { headers: { authorization: `Bearer ${owner.token}` } });
  expect(after.status).toBe(200);
}, 90_000);
