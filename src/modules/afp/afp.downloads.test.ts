// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../http/errors.js';
import { buildEnvironment, createDaemonDownloads } from './afp.downloads.js';

// A stand-in for daemon/build.ts, run the same way (node --import tsx, a child process): it
// counts its runs, fails while a "fail" file exists, and reports which variables it was given.
const FAKE_BUILD = `
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
const out = process.argv[process.argv.indexOf('--out-dir') + 1];
appendFileSync(path.join(out, 'runs'), 'x');
if (existsSync(path.join(out, 'fail'))) {
  process.stderr.write('no compiler here\\n');
  process.exit(1);
}
const file = path.join(out, 'hearth-afp-linux');
writeFileSync(file, 'binary');
const seen = ['VAULT_KEY', 'STRIPE_SECRET_KEY', 'GOOGLE_CLIENT_SECRET', 'DATABASE_URL', 'PATH', 'HOME', 'npm_config_registry', 'NODE_ENV'].filter((n) => process.env[n] !== undefined);
console.log(JSON.stringify({ platform: 'linux', file, filename: 'hearth-afp-linux', size: 6, nodeVersion: process.versions.node, seen, nodeOptions: process.env.NODE_OPTIONS }));
`;

let dir: string;
let script: string;
const runs = () => (existsSync(path.join(dir, 'runs')) ? readFileSync(path.join(dir, 'runs'), 'utf8').length : 0);

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hearth-afp-build-'));
  script = path.join(dir, 'fake-build.mjs');
  writeFileSync(script, FAKE_BUILD);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('daemon downloads', () => {
  it("security: the build child gets what a build needs, never the server's secrets", async () => {
    const secrets = { VAULT_KEY: 'vault-key', STRIPE_SECRET_KEY: 'sk_live_x', GOOGLE_CLIENT_SECRET: 'g-secret', DATABASE_URL: 'postgres://u:p@db/x' };
    const kept = { npm_config_registry: 'https://registry.example/', NODE_ENV: 'production' };
    const saved = { ...process.env };
    Object.assign(process.env, secrets, kept, { NODE_OPTIONS: '--max-old-space-size=64' });
    try {
      const env = buildEnvironment();
      for (const name of Object.keys(secrets)) expect(env, name).not.toHaveProperty(name);
      expect(env).toMatchObject({ ...kept, NODE_OPTIONS: '' });

      const artifact = (await createDaemonDownloads({ buildDir: dir, buildScript: script }).get('linux')) as unknown as { seen: string[]; nodeOptions: string };
      expect(artifact.seen.filter((name) => name in secrets)).toEqual([]);
      expect(artifact.seen).toEqual(expect.arrayContaining(['PATH', 'npm_config_registry', 'NODE_ENV']));
      expect(artifact.nodeOptions).toBe('');
    } finally {
      for (const name of [...Object.keys(secrets), ...Object.keys(kept), 'NODE_OPTIONS']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });

  it('security: a failed build is not run again by every request: 503 with Retry-After until the back-off ends', async () => {
    writeFileSync(path.join(dir, 'fail'), '');
    writeFileSync(path.join(dir, 'runs'), '');
    let clock = 1_000_000;
    const downloads = createDaemonDownloads({ buildDir: dir, buildScript: script, now: () => clock });
    await expect(downloads.get('linux')).rejects.toThrow(/the linux daemon build failed \(exit 1\): no compiler here/);
    expect(runs()).toBe(1);

    for (const advance of [0, 60_000, 200_000]) {
      clock += advance;
      const error = await downloads.get('linux').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(503);
      expect((error as AppError).message).toMatch(/could not be built; the build is tried again in \d+ s/);
      expect(Number((error as AppError).headers['Retry-After'])).toBe(Math.ceil((1_000_000 + 300_000 - clock) / 1000));
    }
    expect(runs()).toBe(1);

    // After five minutes a request builds again.
    clock = 1_000_000 + 300_000;
    unlinkSync(path.join(dir, 'fail'));
    expect((await downloads.get('linux')).filename).toBe('hearth-afp-linux');
    expect(runs()).toBe(2);
  });
});
