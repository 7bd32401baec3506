/**
 * `hearth reset-password` (bin/hearth.js hands it here): the way back into an account whose
 * password is forgotten, for whoever runs the server. It runs the server's own code on the
 * server's own data, with the settings the server reads (DATA_DIR, DATABASE_URL, PUBLIC_BASE_URL,
 * … from the environment and `.env`), whether the server runs or not.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { ConfigError, loadConfig, loadDotEnv, type Config } from '../../config.js';
import { createRootKeys } from '../keyring/keyring.watch.js';
import { DATABASE_FILE } from '../../storage/data-dir.js';
import { createStorage, type Storage } from '../../storage/storage.js';
import { COMMAND_LINE_ACTOR, RESET_LINK_TTL_MS, UnknownAccountError, type PasswordResets } from './accounts.resets.js';
import { PasswordResetBody } from './accounts.schemas.js';

/** What each exit code says; --help and the docs list them. */
export const RESET_EXIT = { ok: 0, failed: 1, usage: 2, unknownAccount: 3 } as const;

const MIN_PASSWORD = PasswordResetBody.properties.newPassword.minLength!;
const MAX_PASSWORD = PasswordResetBody.properties.newPassword.maxLength!;

export const RESET_PASSWORD_USAGE = `Usage: hearth reset-password --email <address> [--password-stdin]

For an owner who forgot the password of a Hearth account. Run it on the server, with the
server's settings (DATA_DIR, DATABASE_URL, PUBLIC_BASE_URL; environment or .env), whether the
server runs or not.

  (default)         print a one-time link to the console's /reset-password page, where the
                    owner sets a new password. It works once, for ${RESET_LINK_TTL_MS / 60_000} minutes, and only while it
                    is the account's newest link: making a new one ends the earlier ones.
  --password-stdin  set the new password here instead: typed twice at the prompt (not shown)
                    when standing at a terminal, or read from standard input (its first line),
                    as in: printf '%s\\n' "$NEW_PASSWORD" | hearth reset-password --email … --password-stdin

Either way, once the new password is set every login session of the account ends (browsers and
apps signed in with the password sign in again); API tokens, agents' tokens and the master token
stay. Both are recorded in the account's audit log.

Exit codes:
  0  the link is printed (on stdout, alone on its line), or the password is set
  1  it failed (the message says why); nothing was changed
  2  wrong usage, or the new password is refused (too short, the two differ): nothing changed
  3  no account signs in with that email`;

function fail(message: string, code: number): number {
  process.stderr.write(`hearth: ${message}\n`);
  return code;
}

type Parsed = { email: string; passwordStdin: boolean } | number;

function parse(argv: string[]): Parsed {
  let email: string | undefined;
  let passwordStdin = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${RESET_PASSWORD_USAGE}\n`);
      return RESET_EXIT.ok;
    } else if (arg === '--email' || arg.startsWith('--email=')) {
      email = arg === '--email' ? argv[++i] : arg.slice('--email='.length);
      if (!email || email.startsWith('--')) return fail(`--email needs the address the account signs in with\n\n${RESET_PASSWORD_USAGE}`, RESET_EXIT.usage);
    } else if (arg === '--password-stdin') passwordStdin = true;
    else return fail(`unknown option "${arg}"\n\n${RESET_PASSWORD_USAGE}`, RESET_EXIT.usage);
  }
  if (!email) return fail(`--email is required: the address the account signs in with\n\n${RESET_PASSWORD_USAGE}`, RESET_EXIT.usage);
  if (email.length > 254 || !email.includes('@')) return fail(`--email ${JSON.stringify(email.slice(0, 80))} is not an email address`, RESET_EXIT.usage);
  return { email, passwordStdin };
}

/** Standard input's first line, read to at most a few times the longest password. */
async function readPasswordLine(): Promise<string> {
  const limit = MAX_PASSWORD * 4 + 2;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.includes('\n')) break;
    if (size > limit) break;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const newline = text.indexOf('\n');
  return (newline === -1 ? text : text.slice(0, newline)).replace(/\r$/, '');
}

/** Asks on the terminal with nothing echoed; Ctrl-C or Ctrl-D gives up. */
function askHidden(question: string): Promise<string | undefined> {
  const input = process.stdin;
  process.stderr.write(question);
  return new Promise((resolve) => {
    let typed = '';
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    const done = (answer: string | undefined) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      resolve(answer);
    };
    const onData = (text: string) => {
      for (const char of text) {
        if (char === '\r' || char === '\n') return done(typed);
        if (char === '\u0003' || char === '\u0004') return done(undefined);
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else if (char >= ' ') typed += char;
      }
    };
    input.on('data', onData);
  });
}

/** The new password from the terminal (twice) or from standard input; a number is the exit code of a refusal. */
async function newPassword(): Promise<string | number> {
  let password: string;
  if (process.stdin.isTTY) {
    const first = await askHidden('New password: ');
    if (first === undefined) return fail('given up; nothing was changed', RESET_EXIT.usage);
    const second = await askHidden('The same again: ');
    if (second === undefined) return fail('given up; nothing was changed', RESET_EXIT.usage);
    if (first !== second) return fail('the two passwords differ; nothing was changed. Run the command again', RESET_EXIT.usage);
    password = first;
  } else {
    password = await readPasswordLine();
  }
  if (password.length === 0) return fail('no password on standard input; nothing was changed. Give it as the first line', RESET_EXIT.usage);
  if (password.length < MIN_PASSWORD) return fail(`the new password has ${password.length} characters; at least ${MIN_PASSWORD} are needed. Nothing was changed`, RESET_EXIT.usage);
  if (password.length > MAX_PASSWORD) return fail(`the new password is longer than ${MAX_PASSWORD} characters; nothing was changed`, RESET_EXIT.usage);
  return password;
}

function settings(): Config | number {
  try {
    loadDotEnv();
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) return fail(error.message, RESET_EXIT.usage);
    throw error;
  }
}

/** The server's database, as the server opens it; a string says why it could not be opened. */
async function openServerStorage(config: Config): Promise<Storage | string> {
  try {
    const rootKeys = createRootKeys({ dataDir: config.dataDir, vaultKey: config.vaultKey, previousKeys: config.vaultPreviousKeys });
    return await createStorage({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, rootKeys });
  } catch (error) {
    const where = config.databaseUrl ? 'the PostgreSQL database of DATABASE_URL' : `the database in DATA_DIR ${config.dataDir}`;
    return `could not open ${where}: ${(error as Error).message}. Run this with the server's settings; nothing was changed`;
  }
}

/**
 * `reset-password …`: the exit code. `services` builds the account services on the server's
 * storage (the composition root's `createAccountsCommandLine`, which bin/hearth.js hands in).
 */
export async function resetPasswordCommand(argv: string[], services: (config: Config, storage: Storage) => Promise<PasswordResets>): Promise<number> {
  const args = parse(argv);
  if (typeof args === 'number') return args;
  const config = settings();
  if (typeof config === 'number') return config;
  // A wrong DATA_DIR would otherwise get a new, empty database, and "no account" for any email.
  if (!config.databaseUrl && !existsSync(path.join(config.dataDir, DATABASE_FILE))) {
    return fail(`DATA_DIR ${config.dataDir} holds no Hearth database (${DATABASE_FILE}): run this with the server's DATA_DIR (or its DATABASE_URL); nothing was changed`, RESET_EXIT.failed);
  }
  // Asked before the database is opened: nothing is held while the operator types.
  const password = args.passwordStdin ? await newPassword() : undefined;
  if (typeof password === 'number') return password;

  const storage = await openServerStorage(config);
  if (typeof storage === 'string') return fail(storage, RESET_EXIT.failed);
  try {
    const resets = await services(config, storage);
    if (password === undefined) {
      const made = await resets.issueLink(args.email, COMMAND_LINE_ACTOR);
      process.stderr.write(`A one-time link for ${made.email}, valid until ${made.expiresAt} (${RESET_LINK_TTL_MS / 60_000} minutes) and once; earlier links no longer work:\n`);
      // Alone on stdout, so a script can take it as it is.
      process.stdout.write(`${made.link}\n`);
      process.stderr.write('Open it in a browser to set a new password. Every login session of the account ends then.\n');
    } else {
      const done = await resets.setPassword(args.email, password, COMMAND_LINE_ACTOR);
      const sessions = done.sessionsEnded === 1 ? '1 login session was' : `${done.sessionsEnded} login sessions were`;
      // A running server hears of it: through SQLite's data_version, or PostgreSQL's write feed.
      process.stdout.write(`The password of ${done.email} is set; ${sessions} ended.\n`);
    }
    return RESET_EXIT.ok;
  } catch (error) {
    // By name: bin/hearth.js loads the services through a module graph of their own, whose class is another object.
    if (error instanceof Error && error.name === UnknownAccountError.name) return fail(`${error.message}; nothing was changed`, RESET_EXIT.unknownAccount);
    return fail(`the reset failed: ${(error as Error).message ?? String(error)}`, RESET_EXIT.failed);
  } finally {
    await storage.close();
  }
}
