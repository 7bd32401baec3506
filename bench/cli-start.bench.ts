/**
 * How long `hearth reset-password` takes from `node bin/hearth.js` to its exit: the start of the
 * command line (loading the server's code, opening the database) and one link made.
 *
 *   DATA_DIR=<a server's data> EMAIL=<an account's email> npx tsx bench/cli-start.bench.ts
 *   COMPARE=<another checkout> COMPARE_DATA_DIR=<its data> … : both, interleaved round by round
 *
 * Each run is a child process measured by /usr/bin/time: wall time, and the CPU time (user and
 * system) it spent, which a shared machine disturbs less. Medians and the spread (min–max) of
 * ROUNDS runs each (default 10). Linux (GNU time).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const here = path.resolve(import.meta.dirname, '..');
const email = process.env.EMAIL;
if (!process.env.DATA_DIR || !email) throw new Error('Set DATA_DIR (a server\'s data, with an account) and EMAIL (its email)');

interface Subject {
  name: string;
  root: string;
  dataDir: string;
  wall: number[];
  cpu: number[];
}

const subjects: Subject[] = [{ name: 'this checkout', root: here, dataDir: process.env.DATA_DIR, wall: [], cpu: [] }];
if (process.env.COMPARE) {
  subjects.push({ name: `COMPARE (${process.env.COMPARE})`, root: path.resolve(process.env.COMPARE), dataDir: process.env.COMPARE_DATA_DIR ?? process.env.DATA_DIR, wall: [], cpu: [] });
}

function runOnce(subject: Subject): void {
  const env = { ...process.env, DATA_DIR: subject.dataDir, PUBLIC_BASE_URL: 'http://127.0.0.1:3000', DATABASE_URL: '' };
  const run = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S', process.execPath, 'bin/hearth.js', 'reset-password', '--email', email!], { cwd: subject.root, env, encoding: 'utf8' });
  const line = run.stderr.split('\n').find((l) => l.startsWith('TIME '));
  if (run.status !== 0 || !line) throw new Error(`${subject.name}: exit ${run.status}\n${run.stderr}`);
  const [wall, user, system] = line.slice(5).split(' ').map(Number);
  subject.wall.push(wall! * 1000);
  subject.cpu.push((user! + system!) * 1000);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const spread = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;

// One run of each first, not counted: the first reads of the files from disk.
for (const subject of subjects) {
  runOnce(subject);
  subject.wall.length = 0;
  subject.cpu.length = 0;
}
for (let round = 0; round < ROUNDS; round++) for (const subject of round % 2 ? [...subjects].reverse() : subjects) runOnce(subject);

for (const subject of subjects) {
  console.log(`${subject.name}: wall ${median(subject.wall).toFixed(0)} ms (${spread(subject.wall)}), CPU ${median(subject.cpu).toFixed(0)} ms (${spread(subject.cpu)}) over ${ROUNDS} runs`);
}
