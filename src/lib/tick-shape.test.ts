// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('./tick-shape.ts', import.meta.url));

/**
 * In a fresh process: calls nextTick until V8 records feedback for it, runs full garbage
 * collections while no tick is queued, calls it again, and counts the property definitions of
 * its queue entry that V8 has given up on (V8's own debug print of the function's feedback).
 */
function slowPropertySites(keep: boolean): number {
  const script = `
    import { keepTickShapeAlive } from ${JSON.stringify(MODULE)};
    if (${keep}) keepTickShapeAlive();
    for (let i = 0; i < 100; i++) await new Promise((resolve) => process.nextTick(resolve));
    gc(); gc();
    for (let i = 0; i < 10; i++) await new Promise((resolve) => process.nextTick(resolve));
    %DebugPrint(process.nextTick);
  `;
  // V8 prints with C's stdio, which loses what a full non-blocking pipe refuses: into a file.
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-tick-'));
  const file = path.join(dir, 'print.txt');
  const fd = openSync(file, 'w');
  let out: string;
  try {
    execFileSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', fd, 'inherit'],
    });
    out = readFileSync(file, 'utf8');
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  const sites = out.split('\n').filter((line) => line.includes('DefineKeyedOwnPropertyInLiteral'));
  if (sites.length === 0) throw new Error(`no feedback printed for nextTick:\n${out.slice(0, 2000)}`);
  return sites.filter((line) => line.includes('MEGAMORPHIC')).length;
}

describe('keepTickShapeAlive', () => {
  it('keeps nextTick off V8 slow path across full garbage collections', (ctx) => {
    // The failure it prevents, shown first: without it, the collections make V8 give up.
    const without = slowPropertySites(false);
    if (without === 0) ctx.skip(); // this Node's V8 no longer loses the feedback; nothing to keep
    expect(without).toBeGreaterThan(0);
    expect(slowPropertySites(true)).toBe(0);
  });
});
