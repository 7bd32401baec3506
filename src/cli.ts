/**
 * The server's code the command line runs (bin/hearth.js), as one entry of the compiled build
 * (scripts/build.mjs bundles it beside main.ts, sharing its chunks): `hearth reset-password`
 * starts from plain JavaScript, as `npm start` does, instead of compiling the TypeScript of the
 * whole server on every run. Nothing here runs on import.
 */
import type { Config } from './config.js';
import type { Storage } from './storage/storage.js';

export { RESET_EXIT, resetPasswordCommand } from './modules/accounts/accounts.cli.js';

/**
 * The account services of the composition root on the server's storage, loaded on first use, so
 * that --help and wrong usage answer before the server's modules are read.
 */
export async function accountsCommandLine(config: Config, storage: Storage) {
  const { createAccountsCommandLine } = await import('./container.js');
  return createAccountsCommandLine(config, storage);
}
