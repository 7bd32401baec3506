/**
 * The daemon's settings: command-line flags first, then environment variables, then a JSON
 * config file, then defaults.
 */
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PRIVILEGES, type Privilege } from '../src/shared/afp.protocol.js';

export interface DaemonSettings {
  server: string;
  token: string;
  name: string;
  root: string;
  privilege: Privilege;
  /** Where the daemon keeps its device key (created on the first start). */
  keyFile: string;
  /** Where the file settings came from, if a file was read. */
  configFile: string | undefined;
}

export class UsageError extends Error {}

const KEYS = ['server', 'token', 'name', 'root', 'privilege', 'keyFile'] as const;
type Key = (typeof KEYS)[number];

/**
 * The daemon's own settings in the environment (ENV_NAMES): removed from it at start, and never
 * passed to a command run by exec.
 */
export const PRIVATE_ENV = /^HEARTH_AFP_/i;

export const ENV_NAMES: Record<Key | 'config', string> = {
  server: 'HEARTH_AFP_SERVER',
  token: 'HEARTH_AFP_TOKEN',
  name: 'HEARTH_AFP_NAME',
  root: 'HEARTH_AFP_ROOT',
  privilege: 'HEARTH_AFP_PRIVILEGE',
  keyFile: 'HEARTH_AFP_KEY_FILE',
  config: 'HEARTH_AFP_CONFIG',
};

export function defaultConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32') {
    return path.join(env.APPDATA || path.join(os.homedir(), 'AppData', 'Roaming'), 'hearth-afp', 'config.json');
  }
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'hearth-afp', 'config.json');
}

/** The device key's default place: beside the default config file. */
export function defaultKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(path.dirname(defaultConfigFile(env)), 'device.key');
}

export function helpText(program: string): string {
  return `hearth-afp: the Hearth remote-PC daemon (AFP)

Connects out to a Hearth server over a WebSocket (wss:// when the server is https://; no port
opens on this PC), registers this PC as a device, and carries out the file and command requests
the owner's agents send through the server, within the limits set here, whatever the server asks.

Usage:
  ${program} --server <base address> --token <token> [--name <device name>]
             [--root <folder>] [--privilege read|write|exec] [--config <file>]
             [--key-file <file>]

Options:
  --server <url>       The Hearth server's base address, e.g. https://hearth.example.com
                       (without /api/v1).                          env ${ENV_NAMES.server}
  --token <token>      An API token of the owner holding the "devices" scope. Prefer the
                       environment variable or the config file: command lines are visible to
                       other users of this PC (ps).                env ${ENV_NAMES.token}
  --name <name>        The device's name; the same owner and name are the same device when it
                       reconnects. Default: this computer's host name.   env ${ENV_NAMES.name}
  --root <folder>      The only folder the daemon may touch; every path is resolved (symbolic
                       links followed) and refused outside it, and the root itself cannot be
                       removed. Default: your home folder.         env ${ENV_NAMES.root}
  --privilege <level>  What the daemon allows. Default: read.     env ${ENV_NAMES.privilege}
                         read   ls, read (text as UTF-8, binary files as base64, up to 10 MiB), stat
                         write  also write (utf8 or base64), mkdir, rm
                         exec   also exec: a shell command run in a folder inside the root,
                                ended with everything it started at its timeout (default 30 s,
                                at most 60 s) or when it exits; stdout and stderr are kept up to
                                1 MiB each (truncated: true beyond)
  --key-file <file>    Where this daemon keeps its device key, made on the first start. A
                       device is bound to the key it registered with: another daemon cannot
                       take its name over, whatever token it holds. Lost the file? The owner
                       removes the device (DELETE /api/v1/afp/devices/{id}), then it registers
                       again. Default: ${defaultKeyFile()}
                                                                   env ${ENV_NAMES.keyFile}
  --config <file>      A JSON file with any of: server, token, name, root, privilege, keyFile.
                       Default: ${defaultConfigFile()} (read when it exists)
                                                                   env ${ENV_NAMES.config}
  --help               Show this text.
  --version            Show the daemon's version.

Flags override environment variables, which override the config file.

The daemon sends a heartbeat at the interval the server sets (15 s by default) and reconnects
after any drop (a network failure, a server restart) with exponential backoff and jitter, up to
30 s between attempts. It stops with exit code 2 when the server rejects the token, when the
owner removes the device, when the device's name is bound to another daemon's key, or when
another daemon connects with this device's name and key. SIGTERM or Ctrl-C
stop it cleanly (exit code 0): running commands are ended and the server sees the device offline
at once.
`;
}

function readConfigFile(file: string, explicit: boolean): Partial<Record<Key, string>> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (!explicit && (error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(`Cannot read the config file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`The config file ${file} is not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`The config file ${file} must hold a JSON object`);
  const out: Partial<Record<Key, string>> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!(KEYS as readonly string[]).includes(key)) throw new UsageError(`The config file ${file} has an unknown key "${key}" (known: ${KEYS.join(', ')})`);
    if (typeof value !== 'string') throw new UsageError(`In the config file ${file}, "${key}" must be a string`);
    out[key as Key] = value;
  }
  return out;
}

export type ParsedArgs = { help: true } | { version: true } | { settings: DaemonSettings; warnings: string[] };

export function parseDaemonArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ParsedArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        server: { type: 'string' },
        token: { type: 'string' },
        name: { type: 'string' },
        root: { type: 'string' },
        privilege: { type: 'string' },
        'key-file': { type: 'string' },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { help: true };
  if (values.version) return { version: true };

  const warnings: string[] = [];
  const explicitFile = values.config ?? env[ENV_NAMES.config];
  const configFile = explicitFile ?? defaultConfigFile(env);
  const fromFile = readConfigFile(configFile, explicitFile !== undefined);
  const fileUsed = Object.keys(fromFile).length > 0 || explicitFile !== undefined;
  if (fromFile.token && process.platform !== 'win32') {
    const mode = statSync(configFile).mode & 0o077;
    if (mode !== 0) warnings.push(`The config file ${configFile} holds a token and other users may read it; chmod 600 it`);
  }

  const flags: Partial<Record<Key, string>> = { ...values, keyFile: values['key-file'] };
  const pick = (key: Key): string | undefined => flags[key] ?? (env[ENV_NAMES[key]] || undefined) ?? fromFile[key];
  const server = pick('server');
  const token = pick('token');
  if (!server) throw new UsageError(`--server is required (or ${ENV_NAMES.server}, or "server" in the config file)`);
  if (!token) throw new UsageError(`--token is required (or ${ENV_NAMES.token}, or "token" in the config file)`);
  try {
    const url = new URL(server);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
  } catch {
    throw new UsageError(`--server must be an http:// or https:// address, got ${server}`);
  }
  const privilege = pick('privilege') ?? 'read';
  if (!(PRIVILEGES as readonly string[]).includes(privilege)) {
    throw new UsageError(`--privilege must be one of ${PRIVILEGES.join(', ')}, got ${privilege}`);
  }
  const name = (pick('name') ?? os.hostname()).trim();
  if (name === '' || name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new UsageError('--name must be 1 to 100 characters, without control characters');
  }
  if (new URL(server).protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(new URL(server).hostname)) {
    warnings.push(`${server} is plain http: the token and every file travel unencrypted; use https`);
  }
  return {
    settings: {
      server,
      token,
      name,
      root: path.resolve(pick('root') ?? os.homedir()),
      privilege: privilege as Privilege,
      keyFile: path.resolve(pick('keyFile') ?? defaultKeyFile(env)),
      configFile: fileUsed ? configFile : undefined,
    },
    warnings,
  };
}
