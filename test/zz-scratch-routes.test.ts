import { vi, it } from 'vitest';
import { writeFileSync } from 'node:fs';

const captured: { url: string; method: string; status: string; schema: unknown }[] = [];
vi.mock('../src/http/lazy-serializers.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/http/lazy-serializers.js')>();
  return {
    ...real,
    lazySerializers: () => {
      const f = real.lazySerializers();
      return (ext: any, opts: any) => {
        const c = f(ext, opts);
        return (route: any) => {
          captured.push({ url: route.url, method: route.method, status: String(route.httpStatus), schema: route.schema });
          return c(route);
        };
      };
    },
  };
});

it('collects', async () => {
  const { createTestApp } = await import('./harness.js');
  const t = await createTestApp();
  await t.app.ready();
  const seen = new Map<string, any>();
  for (const c of captured) {
    const key = JSON.stringify(c.schema);
    if (!seen.has(key)) seen.set(key, c);
  }
  writeFileSync('/tmp/route-schemas.json', JSON.stringify([...seen.values()]));
  console.log('routes', captured.length, 'distinct', seen.size);
  await t.close?.();
}, 120000);
