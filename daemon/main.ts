/**
 * hearth-afp: the remote-PC daemon's entry point. Built into one file (daemon/build.ts) and
 * from there into single executables; `npx tsx daemon/main.ts --help` runs it from source.
 */
import { platformName } from '../src/shared/afp.protocol.js';
import { API_VERSION } from '../src/version.js';
import { helpText, parseDaemonArgs, PRIVATE_ENV, UsageError } from './config.js';
import { loadDeviceKey } from './key.js';
import { startLink } from './link.js';
import { createPolicy } from './policy.js';
import { scrubFromProcessBlocks } from './scrub.js';
import { describeConfinement, execConfinement } from './confine.js';

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${message}\n`);
}

async function main(): Promise<number> {
  const program = 'hearth-afp';
  let parsed;
  try {
    parsed = parseDaemonArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\nRun ${program} --help for the options.\n`);
      return 1;
    }
    throw error;
  }
  if ('help' in parsed) {
    process.stdout.write(helpText(program));
    return 0;
  }
  if ('version' in parsed) {
    process.stdout.write(`${API_VERSION}\n`);
    return 0;
  }
  const { settings, warnings } = parsed;
  for (const warning of warnings) log(`warning: ${warning}`);

  // The token is in `settings` now. Commands run by exec must not find it: not in their
  // environment (ops.ts leaves HEARTH_AFP_* out), nor in what /proc shows of this process.
  for (const name of Object.keys(process.env)) if (PRIVATE_ENV.test(name)) delete process.env[name];
  if (scrubFromProcessBlocks(settings.token) === 'failed') {
    log(
      `warning: the token could not be removed from /proc/${process.pid}/environ and /proc/${process.pid}/cmdline, where a command run by exec can read it; give the token in the config file instead`,
    );
  }

  let policy;
  try {
    policy = await createPolicy(settings.root, settings.privilege);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }

  let deviceKey;
  try {
    deviceKey = loadDeviceKey(settings.keyFile);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  if (deviceKey.created) log(`made a new device key in ${settings.keyFile}`);

  // Probed once, before the first command can arrive; an exec daemon only, the others run none.
  if (policy.privilege === 'exec') log(describeConfinement(await execConfinement()));

  const link = startLink({
    server: settings.server,
    token: settings.token,
    deviceKey: deviceKey.key,
    name: settings.name,
    platform: platformName(process.platform, process.arch),
    version: API_VERSION,
    policy,
    log,
  });
  log(`hearth-afp ${API_VERSION} starting: server ${settings.server}, device "${settings.name}", root ${policy.root}, privilege ${policy.privilege}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    void link.stop();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const outcome = await link.done;
  return outcome.final ? 2 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`hearth-afp failed: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
