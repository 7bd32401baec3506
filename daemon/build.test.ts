// @engine-independent: the PC daemon's own code; no server, no database
/** The pieces of the daemon build that do not need the npm registry. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDaemon, extractFromTarball, stripPeSignature } from './build.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hearth-afp-build-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('extractFromTarball', () => {
  it('finds one file in a package tarball, with short and long names, in gnu and pax formats', () => {
    const longName = `${'deep/'.repeat(30)}node`;
    mkdirSync(path.join(dir, 'package', 'bin'), { recursive: true });
    mkdirSync(path.join(dir, 'package', path.dirname(longName)), { recursive: true });
    writeFileSync(path.join(dir, 'package', 'bin', 'node'), 'the binary');
    writeFileSync(path.join(dir, 'package', 'README.md'), 'readme');
    writeFileSync(path.join(dir, 'package', longName), 'deep binary');
    for (const format of ['gnu', 'pax']) {
      const tgz = path.join(dir, `${format}.tgz`);
      execFileSync('tar', [`--format=${format}`, '-czf', tgz, '-C', dir, 'package']);
      const data = readFileSync(tgz);
      expect(extractFromTarball(data, 'package/bin/node').toString()).toBe('the binary');
      expect(extractFromTarball(data, `package/${longName}`).toString()).toBe('deep binary');
      expect(() => extractFromTarball(data, 'package/bin/node.exe')).toThrow('not in the package');
    }
  });
});

describe('stripPeSignature', () => {
  /** A PE32+ skeleton: DOS header, PE signature, COFF header, optional header, then a certificate table at the end. */
  function pe(certificate: Buffer, atEnd = true): Buffer {
    const body = Buffer.alloc(0x40 + 4 + 20 + 240 + 64);
    body.writeUInt32LE(0x40, 0x3c);
    body.write('PE\0\0', 0x40, 'latin1');
    const optional = 0x40 + 24;
    body.writeUInt16LE(0x20b, optional);
    const file = Buffer.concat([body, certificate, atEnd ? Buffer.alloc(0) : Buffer.from('trailing')]);
    file.writeUInt32LE(body.length, optional + 112 + 32);
    file.writeUInt32LE(certificate.length, optional + 112 + 36);
    return file;
  }

  it('removes the certificate table and its directory entry', () => {
    const signed = pe(Buffer.alloc(16, 0xaa));
    const unsigned = stripPeSignature(signed);
    expect(unsigned.length).toBe(signed.length - 16);
    expect(unsigned.readUInt32LE(0x40 + 24 + 112 + 32)).toBe(0);
    expect(unsigned.readUInt32LE(0x40 + 24 + 112 + 36)).toBe(0);
    expect(unsigned.subarray(0, 0x40 + 24 + 112 + 32)).toEqual(signed.subarray(0, 0x40 + 24 + 112 + 32));
  });

  it('leaves an unsigned executable as it is, and refuses what it does not understand', () => {
    const unsigned = stripPeSignature(pe(Buffer.alloc(16)));
    expect(stripPeSignature(unsigned)).toBe(unsigned);
    expect(() => stripPeSignature(pe(Buffer.alloc(16), false))).toThrow('not at the end');
    expect(() => stripPeSignature(Buffer.alloc(512))).toThrow('not a PE');
  });
});

describe('bundleDaemon', () => {
  it('is one CommonJS file that needs nothing from disk', async () => {
    const bundle = await bundleDaemon();
    expect(bundle).toContain('hearth-afp');
    // Only Node's built-in modules are required: ws's optional native helpers are left out.
    const required = [...bundle.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(required.length).toBeGreaterThan(0);
    expect(required.filter((name) => !builtinModules.includes(name.replace(/^node:/, '')))).toEqual([]);
  });
});
