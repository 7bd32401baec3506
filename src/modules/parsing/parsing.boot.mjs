// The first file of every parsing worker. Node 20 starts a worker without the TypeScript loader
// the main thread runs under (tsx), so this plain-JavaScript file registers that loader in the
// worker's own thread, then imports the worker itself, which is TypeScript like the rest of src/.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
