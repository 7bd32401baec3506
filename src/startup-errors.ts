/**
 * Start-up failures an operator can fix (a port in use, a database that cannot be reached or
 * does not exist, a refused password, an unreadable key file, a DATA_DIR that cannot be made),
 * told in one line: what is wrong and what to do. A stack trace would only bury that line.
 */
import { ConfigError, type Config } from './config.js';
import { errorCodeOf } from './lib/error-code.js';
import { DATABASE_FILE } from './storage/data-dir.js';

/** What main was doing when it failed: the same error code means different things in each. */
export type StartupStage = 'config' | 'database' | 'vault keys' | 'app' | 'listen';

/** Host, port, database and user of DATABASE_URL; never its password. */
function postgresTarget(url: string): { where: string; database: string; user: string } {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname || 'localhost';
    const port = parsed.port || '5432';
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || decodeURIComponent(parsed.username) || 'postgres';
    return { where: `${host}:${port}`, database, user: decodeURIComponent(parsed.username) || 'the default user' };
  } catch {
    return { where: 'the address in DATABASE_URL', database: 'named in DATABASE_URL', user: 'named in DATABASE_URL' };
  }
}

const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'nothing is listening there',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  ECONNRESET: 'the connection was closed',
};

function databaseFailure(error: unknown, code: string | undefined, config: Pick<Config, 'databaseUrl' | 'dataDir'>): string | undefined {
  if (config.databaseUrl) {
    const { where, database, user } = postgresTarget(config.databaseUrl);
    if (code && UNREACHABLE[code]) {
      return `Cannot reach PostgreSQL at ${where}: ${UNREACHABLE[code]} (${code}). Start the database server, or fix the host and port in DATABASE_URL`;
    }
    if (code === '3D000') {
      return `The database "${database}" does not exist on PostgreSQL at ${where}. Create it (createdb ${database}) or fix the database name in DATABASE_URL`;
    }
    if (code === '28P01' || code === '28000') {
      return `PostgreSQL at ${where} refused user "${user}" (${code === '28P01' ? 'wrong password' : 'not allowed to connect'}). Fix the user and password in DATABASE_URL, or the server's pg_hba.conf`;
    }
    if (code && /^[0-9A-Z]{5}$/.test(code)) {
      return `PostgreSQL at ${where} refused to set up Hearth's tables: ${(error as Error).message} (SQLSTATE ${code}). Check that user "${user}" may create tables in database "${database}"`;
    }
    return undefined;
  }
  const file = `${config.dataDir}/${DATABASE_FILE}`;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return `The database file ${file} is not a readable SQLite database (${code}). Restore it from a backup, or set DATA_DIR to another folder`;
  }
  if (code?.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_READONLY' || code === 'EACCES' || code === 'EPERM' || code === 'EISDIR') {
    return `Cannot open the database file ${file} (${code}). Give the user running Hearth read and write access to DATA_DIR, or set DATA_DIR to another folder`;
  }
  return undefined;
}

/**
 * The one line to print for a start-up failure, or undefined when the error is not one an
 * operator can fix from a message (a bug: then the stack is what helps).
 */
export function startupFailureMessage(
  error: unknown,
  stage: StartupStage,
  config: Pick<Config, 'port' | 'host' | 'databaseUrl' | 'dataDir'> | undefined,
): string | undefined {
  if (error instanceof ConfigError) return `Configuration error: ${error.message}`;
  if (!config) return undefined;
  const code = errorCodeOf(error);
  switch (stage) {
    case 'listen':
      if (code === 'EADDRINUSE') return `Port ${config.port} on ${config.host} is in use. Stop the other process, or set PORT to a free port`;
      if (code === 'EACCES') return `Port ${config.port} needs privileges this user does not have. Set PORT to 1024 or above`;
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
        return `HOST ${config.host} is not an address of this machine. Set HOST to one of its addresses (127.0.0.1, or 0.0.0.0 for every interface)`;
      }
      return undefined;
    case 'database':
      return databaseFailure(error, code, config);
    case 'vault keys':
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOENT' || code === 'ENOSPC') {
        return `Cannot write the vault key file in DATA_DIR ${config.dataDir} (${code}). Give the user running Hearth write access to it, or set VAULT_KEY`;
      }
      return databaseFailure(error, code, config);
    default:
      return undefined;
  }
}
