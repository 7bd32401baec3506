// The yardstick every throughput row is divided by: the smallest Fastify app there is (one route,
// logger off), in a process of its own, so that it shares nothing with Hearth but the machine.
// Plain JavaScript, no TypeScript transform, like the compiled server it is compared with.
// Run by bench/hearth.bench.ts with PORT set to a free port.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.env.PORT ?? 3990), host: '127.0.0.1' });
