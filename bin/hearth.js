#!/usr/bin/env node
// Hearth's command line. `hearth mcp` connects a desktop AI client that speaks MCP over stdio
// (Claude Desktop, for one) to a Hearth server's /mcp endpoint: every message read on stdin is
// sent to the server, every message of the server is written to stdout. The server does all the
// work, so stdio and HTTP clients get exactly the same tools.
// `hearth backup` and `hearth restore` run the server's own code (src/modules/backups/backups.cli.ts),
// as `hearth reset-password` does (src/modules/accounts/accounts.cli.ts);
// `hearth export` and `hearth import` call a server's API (bin/hearth-portability.js).
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { PORTABILITY_USAGE, portability } from './hearth-portability.js';

const COMMANDS = `Usage: hearth <command> [options]   (hearth <command> --help for each)

Commands:
  mcp --url <server base URL>      bridge MCP over stdio to a Hearth server
  backup <folder>                  write a checked backup of this server's data into <folder>
  restore <backup folder>          restore a backup into an empty DATA_DIR
  reset-password --email <address> a one-time link to set a forgotten password (or --password-stdin)
  export --url <server base URL>   download the whole account as one archive
  import --url <server base URL> <file.zip>
                                   bring an archive into the account (--dry-run first)`;

const USAGE = `Usage: hearth mcp --url <server base URL>

Bridges MCP over stdio to the Hearth server at <server base URL>/mcp.
The token is read from the HEARTH_TOKEN environment variable.

Example (Claude Desktop, claude_desktop_config.json):
  { "mcpServers": { "hearth": { "command": "node",
                                "args": ["<hearth folder>/bin/hearth.js", "mcp", "--url", "https://hearth.example.org"],
                                "env": { "HEARTH_TOKEN": "hth_pat_..." } } } }`;

/** Everything this program says goes to stderr: stdout carries only protocol messages. */
function fail(message) {
  process.stderr.write(`hearth: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const [, ...rest] = argv;
  let url;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    if (arg === '--url') url = rest[++i];
    else if (arg.startsWith('--url=')) url = arg.slice('--url='.length);
    else fail(`unknown option "${arg}"\n\n${USAGE}`);
  }
  if (!url) fail(`--url is required: the address of your Hearth server\n\n${USAGE}`);
  let endpoint;
  try {
    endpoint = new URL(url);
  } catch {
    fail(`--url ${url} is not an address; give the server's base URL, such as https://hearth.example.org`);
  }
  if (endpoint.protocol !== 'https:' && endpoint.protocol !== 'http:') fail(`--url must be an http or https address, not ${endpoint.protocol}`);
  // The token travels with every message: in clear only to this machine.
  if (endpoint.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(endpoint.hostname)) {
    fail(`--url ${url} is plain http to another machine, which would send the token in clear; use https`);
  }
  // The REST API's address is the commonest wrong guess; the bridge speaks to /mcp beside it, not under it.
  const apiAt = endpoint.pathname.search(/\/api(\/v\d+)?\/*$/);
  if (apiAt >= 0) {
    const root = `${endpoint.origin}${endpoint.pathname.slice(0, apiAt)}`;
    fail(`--url ${url} is the address of Hearth's REST API; the MCP endpoint is /mcp at the server's root: use --url ${root}`);
  }
  // The server's base URL, as the README and discovery give it; /mcp is added here.
  if (!endpoint.pathname.replace(/\/+$/, '').endsWith('/mcp')) endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/mcp`;
  const token = process.env.HEARTH_TOKEN;
  if (!token) fail('HEARTH_TOKEN is not set: put the token the owner created for this client in the environment');
  return { endpoint, token };
}

/**
 * What went wrong reaching the server, said with the address tried and the likely fix: the
 * HTTP client's own words ("fetch failed") name neither.
 */
function explain(error, endpoint) {
  const cause = error?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `nothing answered at ${endpoint.href} (${code}); is Hearth running? is the port right?`;
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `no machine is named ${endpoint.hostname} (${code}); is the address in --url right?`;
  if (typeof code === 'string' && (code.startsWith('ERR_TLS') || code.includes('CERT'))) {
    return `${endpoint.origin} did not prove who it is over https (${code}); is the address right, and its certificate valid?`;
  }
  if (error?.code === 404) return `${endpoint.href} answered 404: no MCP endpoint there; the MCP endpoint is /mcp at the server's root (--url ${endpoint.origin})`;
  if (error?.message === 'fetch failed') return `could not reach ${endpoint.href}: ${cause?.message ?? 'no answer'}; is Hearth running? is the address in --url right?`;
  return `${endpoint.origin}: ${String(error?.message ?? error).replace(/^Streamable HTTP error: /, '')}`;
}

async function bridge({ endpoint, token }) {
  const [{ StdioServerTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const local = new StdioServerTransport();
  const remote = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  // Request ids of initialize requests in flight: their answers carry the protocol version,
  // which the HTTP transport must send on every later request.
  const initializing = new Set();

  remote.onmessage = (message) => {
    if ('id' in message && initializing.has(message.id)) {
      initializing.delete(message.id);
      if (message.result?.protocolVersion) remote.setProtocolVersion(message.result.protocolVersion);
    }
    local.send(message).catch((error) => fail(`cannot write to stdout: ${error.message}`));
  };
  remote.onerror = (error) => process.stderr.write(`hearth: ${explain(error, endpoint)}\n`);

  local.onmessage = (message) => {
    if (message.method === 'initialize' && 'id' in message) initializing.add(message.id);
    remote.send(message).catch((error) => {
      const words = explain(error, endpoint);
      process.stderr.write(`hearth: ${words}\n`);
      // A request the server could not answer still gets an answer, so the client does not wait forever.
      if ('id' in message && message.method) {
        void local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `Hearth server: ${words}` } });
      }
    });
  };
  local.onclose = () => {
    // The client went away: end the server session too (or fail to), then leave.
    const leave = () => process.exit(0);
    remote.terminateSession?.().then(leave, leave);
  };

  await remote.start();
  await local.start();
}

/**
 * A module of the server's: compiled, from dist/, when the build there is current (`npm start`
 * keeps it so; loading is about four times faster), else its TypeScript compiled on the fly (tsx
 * is one of Hearth's dependencies), so an edited checkout never runs stale code.
 */
async function serverModules() {
  const { serverBuildIsCurrent } = await import('../scripts/build-current.mjs');
  const root = new URL('..', import.meta.url);
  if (serverBuildIsCurrent(fileURLToPath(root))) return (file) => import(new URL(`dist/${file}.js`, root).href);
  const { tsImport } = await import('tsx/esm/api');
  return (file) => tsImport(`../${file}.ts`, import.meta.url);
}

/** backup and restore: the backups module's command. */
async function backups(argv) {
  const load = await serverModules();
  const { runCommand } = await load('src/modules/backups/backups.cli');
  process.exitCode = await runCommand(argv);
}

/**
 * The server's command-line entry (src/cli.ts), which builds the account services the
 * composition root makes for the command line: compiled, from dist/, when the build is current,
 * else from the sources under tsx, as serverModules decides.
 */
async function serverCli() {
  const { serverBuildIsCurrent } = await import('../scripts/build-current.mjs');
  const root = new URL('..', import.meta.url);
  if (serverBuildIsCurrent(fileURLToPath(root))) return import(new URL('dist/src/cli.js', root).href);
  const { tsImport } = await import('tsx/esm/api');
  return tsImport('../src/cli.ts', import.meta.url);
}

/**
 * reset-password: the accounts module's command, on the account services the composition root
 * builds for it (loaded only once they are needed: --help and wrong usage answer at once).
 */
async function resetPassword(argv) {
  const { resetPasswordCommand, accountsCommandLine } = await serverCli();
  process.exitCode = await resetPasswordCommand(argv, accountsCommandLine);
}

const [command] = process.argv.slice(2);
if (!command || command === '--help' || command === '-h' || command === 'help') {
  process.stdout.write(`${COMMANDS}\n\n${PORTABILITY_USAGE}\n`);
  process.exit(0);
} else if (command === 'mcp') {
  bridge(parseArgs(process.argv.slice(2))).catch((error) => fail(error.message));
} else if (command === 'export' || command === 'import') {
  portability(command, process.argv.slice(3)).catch((error) => fail(error.message));
} else if (command === 'backup' || command === 'restore') {
  backups(process.argv.slice(2)).catch((error) => fail(error.stack ?? error.message));
} else if (command === 'reset-password') {
  resetPassword(process.argv.slice(3)).catch((error) => fail(error.stack ?? error.message));
} else {
  fail(`unknown command "${command}"\n\n${COMMANDS}`);
}
