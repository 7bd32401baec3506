import { loadConfig, loadDotEnv, type Config } from './config.js';
import { ignoreFailure } from './lib/ignore-failure.js';
import { keepTickShapeAlive } from './lib/tick-shape.js';
import { startupFailureMessage, type StartupStage } from './startup-errors.js';
import { createRootKeys } from './modules/keyring/keyring.watch.js';
import { watchDroppedMessages } from './storage/bus-seal.js';
import { dataDirWarning } from './storage/data-dir.js';
import { openStorage } from './storage/storage.js';

// Before start-up's first full garbage collection: see tick-shape.ts (a third of a small request's work).
keepTickShapeAlive();

/** The longest a shutdown waits for requests in flight before the process exits anyway. */
const SHUTDOWN_LIMIT_MS = 10_000;

// What main is doing, and with which settings: a failure is explained in their terms.
let stage: StartupStage = 'config';
let config: Config | undefined;

async function main(): Promise<void> {
  loadDotEnv();
  config = loadConfig();
  // The vault's root keys also seal the messages between nodes (PostgreSQL): read before the database opens.
  const rootKeys = createRootKeys({ dataDir: config.dataDir, vaultKey: config.vaultKey, previousKeys: config.vaultPreviousKeys });
  stage = 'database';
  const storage = await openStorage({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, nodeHeartbeatMs: config.clusterHeartbeatMs, rootKeys });
  // The services and routes, and the libraries under them, are most of the code: loaded only now,
  // so that an empty database is already bringing its schema up to date while they are read and
  // compiled (the schema changes of a first start run in the database server, on its own core).
  // Loading runs for a good part of a second without a break: the migration's round trips before
  // its schema changes go out are done first. A failure from here on is the app's, not the
  // database's (whose own failures come through storage.ready below).
  await storage.schemaUnderWay;
  stage = 'app';
  const [{ createContainer }, { buildApp }] = await Promise.all([import('./container.js'), import('./app.js')]);
  // From here the container owns storage: app.close() closes both.
  // One root-keys object: storage seals the messages between nodes with it, the keyring wraps data keys.
  const container = createContainer(config, storage, { rootKeys });
  // The database brings its schema up to date (on a first start, most of the start-up time) while
  // the routes are built; nothing queries it before: the vault keys are checked after the
  // migrations, and the server listens only once both are done.
  let databaseStage: StartupStage = 'database';
  const databaseReady = storage.ready.then(() => {
    databaseStage = 'vault keys';
    // Checks the vault keys against the database (and makes the key file on first start).
    return container.keyring.ready();
  });
  void ignoreFailure(databaseReady, 'awaited below once the routes are built, where a failure stops the start; until then it must not be an unhandled rejection');
  const app = await buildApp({ config, container });
  await databaseReady.catch((error: unknown) => {
    stage = databaseStage;
    throw error;
  });
  const looseModes = dataDirWarning(config.dataDir, { database: storage.dialect === 'sqlite' });
  if (looseModes) app.log.warn(looseModes);
  if (storage.seal) watchDroppedMessages(storage.seal, (message) => app.log.warn(message));
  storage.onConnectionLost((error) => {
    app.log.warn(`The database closed an idle connection (${error.message}); a new one is opened when next needed, and nothing is lost`);
  });

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    // Draining: health answers 503 `draining`, and no new connection is accepted, so a load
    // balancer's next attempt goes to another node (a refused connection carried nothing, so any
    // request may be retried elsewhere). Requests already here finish.
    container.health.drain();
    app.server.close();
    app.log.info({ signal, nodeId: storage.bus.nodeId }, 'shutting down: draining (no new connections); finishing in-flight requests, closing event streams and daemon links');
    // Fastify then closes the event streams and daemon links (preClose), waits for the requests in
    // flight, and its onClose hook closes the container.
    const force = setTimeout(() => {
      app.log.error(`shutdown took longer than ${SHUTDOWN_LIMIT_MS / 1000} s; exiting with requests unfinished`);
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS);
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

  // The background work (sweeps, the webhook worker, subscriptions): once the database and the
  // keys are ready, before the first request; stopped by app.close() with the rest.
  await app.ready();
  await container.start(app.log);
  stage = 'listen';
  await app.listen({ port: config.port, host: config.host });
  // A new server's first step is the owner's account: say where to make it, not only where the API is.
  const { hasAccounts } = await container.accounts.registrationStatus();
  const next = hasAccounts
    ? `the console is at ${config.publicBaseUrl}/`
    : `open ${config.publicBaseUrl}/ in a browser to create the owner account`;
  app.log.info(
    { engine: storage.dialect, dataDir: config.dataDir, publicBaseUrl: config.publicBaseUrl },
    `Hearth is serving on ${config.publicBaseUrl}: ${next} (API discovery: ${config.publicBaseUrl}/api/v1/)`,
  );
  // Background indexing for search by meaning: started by the server only, once it listens, so
  // that an app built for a test or a benchmark starts no encoder (docs/decisions/search.md,
  // "Started by the server"). Its first round looks for pending work at once (a restart resumes);
  // the built-in encoder's worker starts only when there is something to embed or a query to rank.
  container.searchIndexer.start();
}

main().catch((error: unknown) => {
  // A failure the operator can fix is one line on stderr saying how; anything else keeps its stack.
  console.error(startupFailureMessage(error, stage, config) ?? error);
  process.exit(1);
});
