import { buildApp } from './app.js';
import { ConfigError, loadConfig, loadDotEnv } from './config.js';
import { createServices } from './services.js';
import { createStorage } from './storage/storage.js';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const storage = await createStorage({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  const services = createServices(config, storage);
  // Checks the vault keys against the database (and makes the key file on first start).
  await services.keyring.ready();
  const app = await buildApp({ config, storage, services });
  app.addHook('onClose', async () => {
    services.parsing.close();
    await services.outbound.close();
    await services.llmOutbound?.close();
    await storage.close();
  });

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Fastify stops accepting, lets in-flight requests finish, then the onClose hook closes storage.
    const force = setTimeout(() => {
      app.log.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { engine: storage.dialect, dataDir: storage.dialect === 'sqlite' ? config.dataDir : undefined, publicBaseUrl: config.publicBaseUrl },
    `Hearth is serving on ${config.publicBaseUrl} (discovery: ${config.publicBaseUrl}/api/v1/)`,
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`Configuration error: ${error.message}`);
  } else {
    console.error(error);
  }
  process.exit(1);
});
