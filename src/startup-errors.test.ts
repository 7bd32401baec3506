// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { startupFailureMessage } from './startup-errors.js';

// The failures a spawned server cannot be made to show here (this user may bypass file
// permissions; no privileged port): the same mapping, fed the errors Node and pg raise.
const errno = (code: string) => Object.assign(new Error(`${code} happened`), { code });
const sqlstate = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });

describe('startupFailureMessage', () => {
  const sqlite = { ...loadConfig({}), port: 80, dataDir: '/srv/hearth' };
  const postgres = { ...sqlite, databaseUrl: 'postgres://hearth:s3cret@db.internal:6543/hearth_prod' };

  it('a privileged port, and a HOST that is not this machine', () => {
    expect(startupFailureMessage(errno('EACCES'), 'listen', sqlite)).toBe('Port 80 needs privileges this user does not have. Set PORT to 1024 or above');
    expect(startupFailureMessage(errno('EADDRNOTAVAIL'), 'listen', sqlite)).toMatch(/^HOST 127\.0\.0\.1 is not an address of this machine/);
  });

  it('PostgreSQL: wrong password, unreachable behind several addresses, a refused migration; never the password', () => {
    const wrong = startupFailureMessage(sqlstate('28P01', 'password authentication failed for user "hearth"'), 'database', postgres);
    expect(wrong).toBe('PostgreSQL at db.internal:6543 refused user "hearth" (wrong password). Fix the user and password in DATABASE_URL, or the server\'s pg_hba.conf');
    const aggregate = Object.assign(new AggregateError([errno('ECONNREFUSED'), errno('ECONNREFUSED')]), {});
    expect(startupFailureMessage(aggregate, 'database', postgres)).toMatch(/^Cannot reach PostgreSQL at db\.internal:6543: nothing is listening there \(ECONNREFUSED\)/);
    expect(startupFailureMessage(sqlstate('42501', 'permission denied for schema public'), 'database', postgres)).toMatch(
      /^PostgreSQL at db\.internal:6543 refused to set up Hearth's tables: permission denied for schema public \(SQLSTATE 42501\)/,
    );
    for (const code of ['28P01', '3D000', 'ECONNREFUSED', 'ENOTFOUND']) {
      expect(startupFailureMessage(Object.assign(new Error('x'), { code }), 'database', postgres)).not.toContain('s3cret');
    }
  });

  it('a key file or DATA_DIR this user may not write', () => {
    expect(startupFailureMessage(errno('EACCES'), 'vault keys', sqlite)).toBe(
      'Cannot write the vault key file in DATA_DIR /srv/hearth (EACCES). Give the user running Hearth write access to it, or set VAULT_KEY',
    );
    expect(startupFailureMessage(Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' }), 'database', sqlite)).toMatch(
      /^Cannot open the database file \/srv\/hearth\/hearth\.db \(SQLITE_CANTOPEN\)\. Give the user running Hearth read and write access to DATA_DIR/,
    );
  });

  it('configuration errors at any stage; anything unforeseen is left to its stack', () => {
    expect(startupFailureMessage(new ConfigError('PORT must be a whole number'), 'config', undefined)).toBe('Configuration error: PORT must be a whole number');
    expect(startupFailureMessage(new TypeError('x is undefined'), 'database', sqlite)).toBeUndefined();
    expect(startupFailureMessage(errno('EADDRINUSE'), 'config', sqlite)).toBeUndefined();
  });
});
