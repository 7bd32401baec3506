import { buildApp } from './app.js';
import { createContainer } from './container.js';
import { loadConfig, loadDotEnv, type Config } from './config.js';
import { startupFailureMessage, type StartupStage } from './startup-errors.js';
import { dataDirWarning } from './storage/data-dir.js';
import { createStorage } from './storage/storage.js';

// What main is doing, and with which settings: a failure is explained in their terms.
let stage: StartupStage = 'config';
let config: Config | undefined;

async function main(): Promise<void> {
  loadDotEnv();
  config = loadConfig();
  stage = 'database';
  const storage = await createStorage({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, nodeHeartbeatMs: config.clusterHeartbeatMs });
  stage = 'vault keys';
  // From here the container owns storage: app.close() closes both.
  const container = createContainer(config, storage);
  // Checks the vault keys against the database (and makes the key file on first start).
  await container.keyring.ready();
  stage = 'app';
  const app = await buildApp({ config, container });
  const looseModes = dataDirWarning(config.dataDir, { database: storage.dialect === 'sqlite' });
  if (looseModes) app.log.warn(looseModes);

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Fastify stops accepting, lets in-flight requests finish, then its onClose hook closes the container.
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

  stage = 'listen';
  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { engine: storage.dialect, dataDir: config.dataDir, publicBaseUrl: config.publicBaseUrl },
    `Hearth is serving on ${config.publicBaseUrl} (discovery: ${config.publicBaseUrl}/api/v1/)`,
  );
}

main().catch((error: unknown) => {
  // A failure the operator can fix is one line on stderr saying how; anything else keeps its stack.
  console.error(startupFailureMessage(error, stage, config) ?? error);
  process.exit(1);
});
