// @engine-independent: the PC daemon's own code; no server, no database
/** The daemon's settings: flags over environment variables over the config file, and clear refusals. */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDaemonArgs, UsageError } from './config.js';
import { loadDeviceKey } from './key.js';
import { backoffDelay, connectUrl } from './link.js';

let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hearth-afp-config-'));
  file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ server: 'https://file.example', token: 'file-token', name: 'from-file', root: dir, privilege: 'write' }), { mode: 0o600 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** No config file of the machine running the tests is read: XDG_CONFIG_HOME points at an empty folder. */
const env = (extra: Record<string, string> = {}) => ({ XDG_CONFIG_HOME: path.join(dir, 'none'), ...extra });

function settings(argv: string[], environment = env()) {
  const parsed = parseDaemonArgs(argv, environment);
  if (!('settings' in parsed)) throw new Error('expected settings');
  return parsed;
}

describe('parseDaemonArgs', () => {
  it('reads flags, with read privilege, the host name and the home folder by default', () => {
    const { settings: s } = settings(['--server', 'http://127.0.0.1:8080', '--token', 't']);
    expect(s).toEqual({
      server: 'http://127.0.0.1:8080',
      token: 't',
      name: os.hostname(),
      root: os.homedir(),
      privilege: 'read',
      keyFile: path.join(dir, 'none', 'hearth-afp', 'device.key'),
      configFile: undefined,
    });
  });

  it('takes flags over environment variables over the config file', () => {
    expect(settings(['--config', file]).settings).toMatchObject({ server: 'https://file.example', token: 'file-token', name: 'from-file', root: dir, privilege: 'write' });
    const fromEnv = settings(['--config', file], env({ HEARTH_AFP_TOKEN: 'env-token', HEARTH_AFP_PRIVILEGE: 'exec' })).settings;
    expect(fromEnv).toMatchObject({ server: 'https://file.example', token: 'env-token', privilege: 'exec', configFile: file });
    const fromFlags = settings(['--config', file, '--token', 'flag-token', '--privilege', 'read'], env({ HEARTH_AFP_TOKEN: 'env-token' })).settings;
    expect(fromFlags).toMatchObject({ token: 'flag-token', privilege: 'read' });
    expect(settings([], env({ HEARTH_AFP_CONFIG: file })).settings.name).toBe('from-file');
    expect(settings(['--config', file], env({ HEARTH_AFP_KEY_FILE: path.join(dir, 'env.key') })).settings.keyFile).toBe(path.join(dir, 'env.key'));
    expect(settings(['--config', file, '--key-file', path.join(dir, 'flag.key')]).settings.keyFile).toBe(path.join(dir, 'flag.key'));
  });

  it('answers help and version', () => {
    expect(parseDaemonArgs(['--help'], env())).toEqual({ help: true });
    expect(parseDaemonArgs(['--version'], env())).toEqual({ version: true });
  });

  it('refuses what it cannot use, saying how to fix it', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--token', 't'], /--server is required/],
      [['--server', 'https://x.example'], /--token is required/],
      [['--server', 'ftp://x', '--token', 't'], /http:\/\/ or https:\/\//],
      [['--server', 'https://x.example', '--token', 't', '--privilege', 'admin'], /one of read, write, exec/],
      [['--server', 'https://x.example', '--token', 't', '--bogus'], /Unknown option/],
      [['--config', path.join(dir, 'missing.json')], /Cannot read the config file/],
    ];
    for (const [argv, message] of cases) expect(() => parseDaemonArgs(argv, env()), argv.join(' ')).toThrow(message);
    writeFileSync(path.join(dir, 'extra.json'), JSON.stringify({ server: 'https://x.example', tokn: 'typo' }));
    expect(() => parseDaemonArgs(['--config', path.join(dir, 'extra.json')], env())).toThrow(UsageError);
  });

  it('warns about a token in a file others may read, and about plain http to another machine', () => {
    const loose = path.join(dir, 'loose.json');
    writeFileSync(loose, JSON.stringify({ server: 'http://hearth.example', token: 't' }), { mode: 0o644 });
    const { warnings } = settings(['--config', loose]);
    expect(warnings).toEqual([expect.stringContaining('chmod 600'), expect.stringContaining('unencrypted')]);
  });
});

describe('the device key', () => {
  it('is made once, private to its user, and read back the same on every start', () => {
    const keyFile = path.join(dir, 'keys', 'device.key');
    const made = loadDeviceKey(keyFile);
    expect(made.created).toBe(true);
    expect(made.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(keyFile)).mode & 0o777).toBe(0o700);
    expect(loadDeviceKey(keyFile)).toEqual({ key: made.key, created: false });
    expect(loadDeviceKey(path.join(dir, 'keys', 'other.key')).key).not.toBe(made.key);
  });

  it('refuses a damaged key file rather than making a new key silently', () => {
    const damaged = path.join(dir, 'damaged.key');
    writeFileSync(damaged, 'not a key');
    expect(() => loadDeviceKey(damaged)).toThrow(/damaged.*removes this device/);
  });
});

describe('the link', () => {
  it('connects with ws for http and wss for https, below any base path, never to a doubled /api/v1', () => {
    expect(connectUrl('http://127.0.0.1:8080')).toBe('ws://127.0.0.1:8080/api/v1/afp/connect');
    expect(connectUrl('https://me.example/hearth/')).toBe('wss://me.example/hearth/api/v1/afp/connect');
    expect(connectUrl('https://me.example/api/v1')).toBe('wss://me.example/api/v1/afp/connect');
  });

  it('backs off exponentially with jitter, up to the ceiling', () => {
    for (let attempt = 0; attempt < 30; attempt++) {
      const ceiling = Math.min(30_000, 500 * 2 ** attempt);
      const delay = backoffDelay(attempt, 500, 30_000);
      expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delay).toBeLessThanOrEqual(ceiling);
    }
  });
});
