// @engine-independent: the PC daemon's own code; no server, no database
/**
 * The token leaves what other processes of the same user see of the daemon (/proc/<pid>/environ
 * and /proc/<pid>/cmdline), in a process of its own started with the token in both.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECRET = 'hth_pat_scrub-me-0123456789abcdef';

describe.runIf(process.platform === 'linux')('scrubFromProcessBlocks', () => {
  it('overwrites the token in the environment and argument blocks, and says so; the rest stays', async () => {
    const script = `
      import { scrubFromProcessBlocks } from ${JSON.stringify(path.join(here, 'scrub.ts'))};
      delete process.env.HEARTH_AFP_TOKEN;
      const first = scrubFromProcessBlocks(${JSON.stringify(SECRET)});
      const again = scrubFromProcessBlocks(${JSON.stringify(SECRET)});
      process.stdout.write(JSON.stringify({ first, again, home: process.env.HOME }) + '\\n');
      process.stdin.resume();
      process.stdin.on('end', () => process.exit(0));
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script, '--', '--token', SECRET], {
      env: { ...process.env, HEARTH_AFP_TOKEN: SECRET },
      stdio: ['pipe', 'pipe', 'inherit'],
      cwd: path.join(here, '..'),
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (chunk) => {
          out += chunk;
          if (out.includes('\n')) resolve(out);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
      expect(JSON.parse(line)).toEqual({ first: 'scrubbed', again: 'absent', home: process.env.HOME });
      const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8');
      const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8');
      expect(environ).not.toContain(SECRET);
      expect(cmdline).not.toContain(SECRET);
      expect(environ).toContain(`HOME=${process.env.HOME}`);
      expect(cmdline).toContain('--token');
    } finally {
      child.stdin!.end();
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    }
  }, 30_000);
});
