/**
 * `npx tsx bench/passages.micro.ts`: what storing a document's passages costs, on a server as
 * `npm start` runs it (fresh SQLite store, embedder off): cutting text into passages (in
 * process), the bytes the passages add, and the time of a create and of a search of a large
 * document through the API. The measurements behind the passage storage decision
 * (docs/decisions/search.md, "Knowledge passages").
 */
import { performance } from 'node:perf_hooks';
import { splitPassages } from '../src/storage/search/passages.js';
import { api } from './lib/http.js';
import { newOwner, startRecallServer } from './lib/recall.js';

const WORDS = 'garden boiler invoice tomato planning holiday school account engine window winter river'.split(' ');

/** Markdown of about `bytes` bytes: sections of a heading and paragraphs of 40 to 120 words. */
function markdown(bytes: number, seed: number): string {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) & 0x7fffffff);
  const parts: string[] = [];
  let size = 0;
  let section = 0;
  while (size < bytes) {
    const part =
      next() % 6 === 0
        ? `## Section ${section++}`
        : Array.from({ length: 40 + (next() % 80) }, () => `${WORDS[next() % WORDS.length]}${next() % 500}`).join(' ');
    parts.push(part);
    size += part.length + 2;
  }
  return parts.join('\n\n');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const bytes of [100_000, 1_000_000, 10_000_000]) {
  const text = markdown(bytes, bytes);
  const times: number[] = [];
  let passages = splitPassages(text);
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    passages = splitPassages(text);
    times.push(performance.now() - started);
  }
  const stored = passages.reduce((n, p) => n + Buffer.byteLength(p.text) + Buffer.byteLength(JSON.stringify(p.headings)), 0);
  console.log(
    `${(bytes / 1e6).toFixed(1)} MB: ${passages.length} passages, split ${median(times).toFixed(1)} ms (median of 5), passage text ${(stored / Buffer.byteLength(text)).toFixed(2)}x the document`,
  );
}

const running = await startRecallServer({ mode: 'words', env: {}, queryParams: {}, rest: [] });
try {
  const token = await newOwner(running.server.baseUrl, 'passages-micro');
  for (const bytes of [10_000, 100_000, 1_000_000, 10_000_000]) {
    const creates: number[] = [];
    const searches: number[] = [];
    for (let i = 0; i < 3; i++) {
      const content = markdown(bytes, bytes + i);
      let started = performance.now();
      await api(running.server.baseUrl, 'POST', '/api/v1/brain/knowledge-base', { title: `doc ${bytes} ${i}`, content }, token);
      creates.push(performance.now() - started);
      started = performance.now();
      await api(running.server.baseUrl, 'GET', `/api/v1/brain/knowledge-base/passages?q=${encodeURIComponent(`tomato${i} boiler planning`)}&limit=10`, undefined, token);
      searches.push(performance.now() - started);
    }
    console.log(`create ${(bytes / 1e6).toFixed(2)} MB: ${median(creates).toFixed(0)} ms median of 3; next passage search (index rebuilt): ${median(searches).toFixed(0)} ms`);
  }
} finally {
  await running.dispose();
}
