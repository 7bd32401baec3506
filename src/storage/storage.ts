import type { AnyTables } from './columns.js';
import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from 'kysely';
import { ignoreFailure } from '../lib/ignore-failure.js';
import { createBusSeal, type BusKeySource, type BusSeal } from './bus-seal.js';
import { startChangeFeed, type ChangeFeed } from './change-feed.js';
import { createLocalBus, newNodeId, startPgBus, type ClusterBus } from './cluster-bus.js';
import { alignJournalModes, createDatabaseFile, prepareDataDir } from './data-dir.js';
import type { Dialect } from './dialect.js';
import { createGroupCommit, type GroupCommit } from './group-commit.js';
import { MIGRATION_NAMES, migrationProvider } from './migrations/index.js';
import { startPgListener, type PgListener } from './pg-listener.js';
import { createStatementPool } from './postgres-pool.js';
import { createLocalRegistry, createPgRegistry, type NodeRegistry } from './node-registry.js';
import type { Executor } from './columns.js';
import { createWriteTracker, type WriteTracker } from './write-tracker.js';

export interface Storage {
  /**
   * The one connection pool. Storage names no module's table: each module's repository types it
   * with the tables the module declares (`Executor<MemoryTables>`, see columns.ts).
   */
  db: Executor;
  dialect: Dialect;
  /**
   * Counts committed writes per table, for caches of derived answers. With PostgreSQL other
   * nodes' writes arrive through `changes`, and nothing is cached while that feed is down.
   */
  writes: WriteTracker;
  /** PostgreSQL only: the feed of writes between the nodes sharing the schema. */
  changes: ChangeFeed | undefined;
  /** Messages between the nodes sharing the database (with SQLite, this node alone). */
  bus: ClusterBus;
  /** The nodes sharing the database and which of them are alive (with SQLite, this node alone). */
  nodes: NodeRegistry;
  /** PostgreSQL only: the seal on the messages between nodes, which counts those dropped (`watchDroppedMessages`). */
  seal: BusSeal | undefined;
  /** Batches concurrent writes into shared transactions; see group-commit.ts for the rule its units follow. */
  groupCommit: GroupCommit;
  /**
   * Settles once the schema is up to date (and, on PostgreSQL, this node is in the registry):
   * nothing queries the database before. A failure has closed the storage already. Marked
   * handled: whoever awaits it later still gets the error, and nothing reports it in between.
   */
  ready: Promise<void>;
  /**
   * Settles (never rejects) once bringing the schema up to date needs nothing more of this
   * process than to wait: the schema changes are on their way to the database server, or
   * nothing was to be done, or it failed (`ready` says which). Start-up loads the bulk of its
   * code only then, so that its round trips before that are not held up behind the loading.
   */
  schemaUnderWay: Promise<void>;
  /**
   * Calls `listener` when the database closed a connection the pool held idle (PostgreSQL
   * restarted, an administrator or an idle-connection limit ended it, the network dropped it).
   * Nothing is lost: the pool drops that connection and opens a new one when next needed; the
   * listener only tells the operator. Never called with SQLite.
   */
  onConnectionLost(listener: (error: Error) => void): void;
  /** Waits for the writes in flight (group commit), then closes the change feed and the database. */
  close(): Promise<void>;
}

export interface StorageOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** PostgreSQL schema to use (created if missing); tests give each app its own. */
  pgSchema?: string;
  /** How often this node writes its heartbeat in the node registry (PostgreSQL); three missed ones and it counts as dead. */
  nodeHeartbeatMs?: number;
  /**
   * The vault's root keys (`createRootKeys`), which every node of a cluster shares: the messages
   * between nodes are sealed under a key derived from them (bus-seal.ts). Unused with SQLite.
   */
  rootKeys: BusKeySource;
}

export const DEFAULT_NODE_HEARTBEAT_MS = 2_000;

/**
 * better-sqlite3 compiles a statement on every `prepare`; Kysely prepares each query it runs.
 * Caching compiled statements by their SQL text removes that cost from every request.
 * Kysely only iterates a statement for `.stream()`, which Hearth does not use, so a cached
 * statement is never in use twice at once.
 */
function withStatementCache(database: BetterSqlite3.Database, max = 1000): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(sqlText: string): SqliteStatement {
      let statement = cache.get(sqlText);
      if (!statement) {
        statement = database.prepare(sqlText);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(sqlText, statement);
      }
      return statement as unknown as SqliteStatement;
    },
  };
}

/**
 * Kysely's SQLite driver opens transactions with a plain (deferred) BEGIN, which takes the write
 * lock only at the first write: a transaction that reads first can then fail with SQLITE_BUSY
 * against another process's writer (the key rotation script) instead of waiting its turn.
 * BEGIN IMMEDIATE takes the write lock at once, under busy_timeout.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

function openSqlite(dataDir: string): { db: Executor; writes: WriteTracker } {
  // Made 0600 before SQLite opens it; SQLite then gives -wal and -shm the same mode.
  const database = new BetterSqlite3(createDatabaseFile(dataDir));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // Other processes write to this file now and then (`hearth reset-password` ends login
  // sessions, the key rotation script re-wraps keys): the caches of derived answers, and the
  // token cache, hear of it through SQLite's data_version.
  const dataVersion = database.prepare('PRAGMA data_version').pluck();
  const writes = createWriteTracker({ externalVersion: () => dataVersion.get() as number });
  const db = new Kysely<AnyTables>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(database) }), plugins: [writes.plugin] });
  return { db, writes };
}

/** Connections per node: enough to keep PostgreSQL busy on a small machine, few enough to leave room for several nodes. */
const PG_POOL_MAX = 10;
/** Prepared statements kept per connection (see postgres-pool.ts). */
const PG_STATEMENTS_PER_CONNECTION = 200;
/** The longest a cached answer is kept on PostgreSQL: how long it can outlive a change made on another node whose notification was lost. */
const PG_CACHE_MAX_AGE_MS = 5_000;

/**
 * This machine's clock's distance from the database's, measured once: the nodes time their
 * messages to each other on the database's clock, so that their own clocks need not agree.
 */
async function databaseClockOffset(db: Executor): Promise<number> {
  const before = Date.now();
  const { rows } = await sql<{ now: number }>`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now`.execute(db);
  const after = Date.now();
  return Number(rows[0]!.now) - (before + after) / 2;
}

async function openPostgres(
  url: string,
  schema: string | undefined,
  rootKeys: BusKeySource,
  heartbeatMs: number,
): Promise<{
  db: Executor;
  writes: WriteTracker;
  changes: ChangeFeed;
  bus: ClusterBus;
  nodes: ReturnType<typeof createPgRegistry>;
  seal: BusSeal;
  listener: PgListener;
  lost: Set<(error: Error) => void>;
}> {
  // Loaded only when PostgreSQL is configured: an SQLite server never pays for the driver.
  const { default: pg } = await import('pg');
  // PostgreSQL returns int8 (COUNT(*), BIGINT) as strings; every count Hearth keeps fits a JS number.
  pg.types.setTypeParser(20, (value) => Number(value));
  if (schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid PostgreSQL schema name: ${schema}`);
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    try {
      await setup.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await setup.end();
    }
  }
  const clientConfig = { connectionString: url, ...(schema ? { options: `-c search_path=${schema}` } : {}) };
  const pool = new pg.Pool({ ...clientConfig, max: PG_POOL_MAX });
  // An idle connection the database ends is an 'error' on the pool; unheard, it would end the
  // process. The pool has already dropped that connection and opens another on next use.
  const lost = new Set<(error: Error) => void>();
  pool.on('error', (error) => {
    for (const listener of lost) listener(error);
  });
  const writes = createWriteTracker({ maxAgeMs: PG_CACHE_MAX_AGE_MS });
  let changes: ChangeFeed | undefined;
  const statementPool = createStatementPool({
    pool,
    maxStatements: PG_STATEMENTS_PER_CONNECTION,
    onCommit(tables) {
      writes.noteWrites(tables);
      changes?.publish(tables);
    },
  });
  const db = new Kysely<AnyTables>({ dialect: new PostgresDialect({ pool: statementPool }) });
  let listener: PgListener | undefined;
  try {
    // Nodes share channels when they share a schema; a hash keeps any schema name a valid channel name.
    const current = (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db)).rows[0]?.schema ?? '';
    const schemaKey = createHash('sha256').update(current).digest('hex').slice(0, 16);
    const channel = `hearth_changes_${schemaKey}`;
    const nodeId = newNodeId();
    listener = await startPgListener({
      // Named after the schema, so that an operator can tell the listening connections apart in pg_stat_activity.
      newClient: () => new pg.Client({ ...clientConfig, application_name: `hearth_${schemaKey}_${nodeId}`, keepAlive: true }),
      query: (text, values) => pool.query(text, values),
    });
    const offset = await databaseClockOffset(db);
    const seal = createBusSeal({ nodeId, keys: rootKeys, scope: schemaKey, clock: () => Date.now() + offset });
    // Registers only once the migrations are done (its table is one of them); the bus asks it who is alive.
    const nodes = createPgRegistry({ db, nodeId, heartbeatMs });
    changes = await startChangeFeed({ channel, seal, tracker: writes, listener });
    const bus = await startPgBus({ listener, channelPrefix: `hearth_bus_${schemaKey}`, seal, senders: nodes });
    return { db, writes, changes, bus, nodes, seal, listener, lost };
  } catch (error) {
    await listener?.close();
    await db.destroy();
    throw error;
  }
}

/** Kysely's migration tables, kept as its Migrator makes them: a node of an earlier version reads them. */
const MIGRATION_TABLE = 'kysely_migration';
const MIGRATION_LOCK_TABLE = 'kysely_migration_lock';
/** The advisory lock Kysely's Migrator takes on PostgreSQL: nodes of an earlier version take the same one. */
const PG_MIGRATION_LOCK = sql.lit(3853314791062309107n);

/**
 * `underWay` is called once the migrations need no more round trips of this process but their
 * last (see Storage.schemaUnderWay), and at the latest when they end, done or failed.
 */
export async function migrateToLatest(db: Executor, dialect: Dialect, underWay: () => void = () => {}): Promise<void> {
  try {
    await (dialect === 'postgres' ? migratePostgres(db, underWay) : migrateSqlite(db));
  } finally {
    underWay();
  }
}

/**
 * SQLite's migrations, in the tables Kysely's Migrator makes (a node of an earlier version reads
 * them) but in one transaction: its Migrator runs SQLite's schema changes without one, so each of
 * the first start's some hundred statements commits, and syncs the journal, on its own; and a
 * first start that failed halfway would leave half a schema. BEGIN IMMEDIATE takes the write lock
 * at once, so a second process starting on the same file waits (busy_timeout) and then finds
 * nothing left to do.
 */
async function migrateSqlite(db: Executor): Promise<void> {
  // Every start but the first has nothing to do: one read tells.
  const applied = await sql<{ name: string }>`SELECT name FROM ${sql.id(MIGRATION_TABLE)}`.execute(db).then(
    (result) => result.rows.map((row) => row.name),
    // No such table yet: a first start.
    () => [],
  );
  if (upToDate(applied)) return;
  const migrations = await migrationProvider('sqlite').getMigrations();
  const table = sql.id(MIGRATION_TABLE);
  let pending: readonly string[] = [];
  try {
    await db.transaction().execute(async (trx) => {
      await sql`CREATE TABLE IF NOT EXISTS ${table} (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(trx);
      await sql`CREATE TABLE IF NOT EXISTS ${sql.id(MIGRATION_LOCK_TABLE)} (id varchar(255) NOT NULL PRIMARY KEY, is_locked integer NOT NULL DEFAULT 0)`.execute(trx);
      await sql`INSERT INTO ${sql.id(MIGRATION_LOCK_TABLE)} (id, is_locked) VALUES ('migration_lock', 0) ON CONFLICT DO NOTHING`.execute(trx);
      pending = pendingMigrations((await sql<{ name: string }>`SELECT name FROM ${table}`.execute(trx)).rows.map((row) => row.name));
      const timestamp = new Date().toISOString();
      for (const name of pending) {
        await migrations[name]!.up(trx);
        await sql`INSERT INTO ${table} (name, timestamp) VALUES (${name}, ${timestamp})`.execute(trx);
      }
    });
  } catch (error) {
    throw migrationFailed(pending, error);
  }
}

/**
 * The migrations still to run after `applied`, which must be a prefix of the migrations this
 * version knows (as Kysely's Migrator requires): anything else is a database this version cannot
 * safely change.
 */
function pendingMigrations(applied: readonly string[]): readonly string[] {
  const names = new Set(applied);
  const unknown = applied.find((name) => !MIGRATION_NAMES.includes(name));
  if (unknown) throw new Error(`corrupted migrations: previously executed migration ${unknown} is missing`);
  const gap = MIGRATION_NAMES.slice(0, names.size).find((name) => !names.has(name));
  if (gap) throw new Error(`corrupted migrations: migration ${gap} was not executed but later ones were`);
  return MIGRATION_NAMES.slice(names.size);
}

function migrationFailed(pending: readonly string[], error: unknown): Error {
  const which = pending.length === 0 ? '' : pending.length === 1 ? `${pending[0]} ` : `(one of ${pending[0]} to ${pending.at(-1)}) `;
  return new Error(`Database migration ${which}failed: ${String(error)}`);
}

function upToDate(applied: string[]): boolean {
  const names = new Set(applied);
  return names.size === MIGRATION_NAMES.length && MIGRATION_NAMES.every((name) => names.has(name));
}

/**
 * PostgreSQL's migrations, in the tables and under the lock of Kysely's Migrator, in fewer round
 * trips. Its Migrator reads the whole table list twice and takes its lock even when nothing is
 * left to do (every start but the first), and on a first start records each migration as it
 * goes: a round trip per migration, each waiting its turn while the routes are built (main.ts).
 * Here one read tells whether anything is to be done; if so, under the lock and in one
 * transaction as before, the pending migrations' schema changes go to the server together
 * (postgres-pool.ts holds them) with the rows that record them.
 */
async function migratePostgres(db: Executor, underWay: () => void): Promise<void> {
  // The migration tables of the schema the connection actually uses, not another one's (another
  // app's, a parallel test's) found further along the search path.
  const { schema, recorded } = (
    await sql<{ schema: string; recorded: boolean }>`SELECT current_schema() AS schema,
      to_regclass(format('%I.%I', current_schema(), ${MIGRATION_TABLE}::text)) IS NOT NULL AS recorded`.execute(db)
  ).rows[0]!;
  const table = sql.id(schema, MIGRATION_TABLE);
  const lockTable = sql.id(schema, MIGRATION_LOCK_TABLE);
  const readApplied = async (from: Executor) => (await sql<{ name: string }>`SELECT name FROM ${table}`.execute(from)).rows.map((row) => row.name);
  if (recorded && upToDate(await readApplied(db))) return;
  const migrations = await migrationProvider('postgres').getMigrations();
  let pending: readonly string[] = [];
  try {
    await db.connection().execute(async (connection) => {
      // Several nodes starting at once on a new database: one migrates, the others wait here and then find nothing left.
      await sql`SELECT pg_advisory_lock(${PG_MIGRATION_LOCK})`.execute(connection);
      try {
        await connection.transaction().execute(async (trx) => {
          await sql`CREATE TABLE IF NOT EXISTS ${table} (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(trx);
          await sql`CREATE TABLE IF NOT EXISTS ${lockTable} (id varchar(255) NOT NULL PRIMARY KEY, is_locked integer NOT NULL DEFAULT 0)`.execute(trx);
          await sql`INSERT INTO ${lockTable} (id, is_locked) VALUES ('migration_lock', 0) ON CONFLICT DO NOTHING`.execute(trx);
          pending = pendingMigrations(await readApplied(trx));
          if (pending.length === 0) return;
          // From here the schema changes are held (postgres-pool.ts) and go out with the INSERT
          // below, without waiting on anything but this process's next microtasks.
          underWay();
          for (const name of pending) await migrations[name]!.up(trx);
          const timestamp = new Date().toISOString();
          await sql`INSERT INTO ${table} (name, timestamp) SELECT name, ${timestamp} FROM unnest(${pending}::text[]) AS name`.execute(trx);
        });
      } finally {
        await sql`SELECT pg_advisory_unlock(${PG_MIGRATION_LOCK})`.execute(connection);
      }
    });
  } catch (error) {
    throw migrationFailed(pending, error);
  }
}

/**
 * Opens the configured database and starts bringing its schema up to date, without waiting for
 * that: on an empty PostgreSQL database the migrations are some hundred schema changes the
 * database server works through while this process builds its services and routes.
 */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  // DATA_DIR holds the vault key file whatever the engine (and SQLite's database), so it is made
  // (0700) here, once, for PostgreSQL too: the server and the key rotation script both start here.
  prepareDataDir(options.dataDir);
  const dialect: Dialect = options.databaseUrl ? 'postgres' : 'sqlite';
  let db: Executor;
  let writes: WriteTracker;
  let changes: ChangeFeed | undefined;
  let bus: ClusterBus;
  let listener: PgListener | undefined;
  let lost: Set<(error: Error) => void> | undefined;
  const heartbeatMs = options.nodeHeartbeatMs ?? DEFAULT_NODE_HEARTBEAT_MS;
  let pgNodes: ReturnType<typeof createPgRegistry> | undefined;
  let seal: BusSeal | undefined;
  if (options.databaseUrl) {
    ({ db, writes, changes, bus, nodes: pgNodes, seal, listener, lost } = await openPostgres(options.databaseUrl, options.pgSchema, options.rootKeys, heartbeatMs));
  } else {
    ({ db, writes } = openSqlite(options.dataDir));
    bus = createLocalBus();
  }
  const nodes: NodeRegistry = pgNodes ?? createLocalRegistry(bus.nodeId, heartbeatMs);
  const closeAll = async () => {
    await nodes.close();
    await changes?.close();
    await bus.close();
    await listener?.close();
    await db.destroy();
  };
  let failed = false;
  let underWay!: () => void;
  const schemaUnderWay = new Promise<void>((resolve) => (underWay = resolve));
  const ready = (async () => {
    try {
      await migrateToLatest(db, dialect, underWay);
      if (dialect === 'sqlite') alignJournalModes(options.dataDir);
      await pgNodes?.start();
    } catch (error) {
      failed = true;
      await closeAll();
      throw error;
    }
  })();
  void ignoreFailure(ready, 'the opener awaits `ready`, where a failure stops the start; until then it must not be an unhandled rejection');
  const groupCommit = createGroupCommit(db, dialect);
  const storage: Storage = {
    db,
    dialect,
    writes,
    changes,
    bus,
    nodes,
    seal,
    groupCommit,
    ready,
    schemaUnderWay,
    onConnectionLost(listener) {
      lost?.add(listener);
    },
    async close() {
      // Not in the middle of a migration; a failed one closed everything already.
      await ignoreFailure(ready, 'only its end is awaited: a failed migration was reported to the opener');
      if (failed) return;
      // Acknowledged writes are committed already; queued ones are committed before closing.
      await groupCommit.close();
      await closeAll();
    },
  };
  return storage;
}

/** Opens the configured database and brings its schema up to date. */
export async function createStorage(options: StorageOptions): Promise<Storage> {
  const storage = await openStorage(options);
  await storage.ready;
  return storage;
}

/** True when the error is a unique-key violation, on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
