// `hearth export` and `hearth import`: the owner's whole account out of a Hearth server as one
// archive, and an archive back in, through the server's HTTP API (POST /api/v1/export, GET
// /api/v1/export/{id}, POST /api/v1/import). The token is the master token, from HEARTH_TOKEN.
import { createWriteStream, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import process from 'node:process';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export const PORTABILITY_USAGE = `Usage:
  hearth export --url <server base URL> [--out <file.zip>] [--secrets]
  hearth import --url <server base URL> <file.zip> [--dry-run]

export  writes the whole account to one archive (default: hearth-export-<date>.zip).
        --secrets also carries vault secrets, OAuth tokens and webhook secrets, encrypted
        with the passphrase in HEARTH_PASSPHRASE (at least 10 characters; keep it).
import  brings an archive into the account: on an empty account exactly as it was, on one
        with data as a merge that never overwrites. --dry-run shows what would change.
        HEARTH_PASSPHRASE, when set, opens the archive's secrets.

The token is read from HEARTH_TOKEN (the account's master token).
Exit codes: 0 done; 1 wrong usage; 2 the server refused (the message says why);
3 the server could not be reached or the export failed; 4 the import met conflicts (reported).`;

const EXIT = { usage: 1, refused: 2, failed: 3, conflicts: 4 };

function stop(code, message) {
  process.stderr.write(`hearth: ${message}\n`);
  process.exit(code);
}

function parse(command, argv) {
  const options = { command, url: undefined, out: undefined, secrets: false, dryRun: false, file: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${PORTABILITY_USAGE}\n`);
      process.exit(0);
    } else if (arg === '--url') options.url = argv[++i];
    else if (arg.startsWith('--url=')) options.url = arg.slice(6);
    else if (arg === '--out' && command === 'export') options.out = argv[++i];
    else if (arg === '--secrets' && command === 'export') options.secrets = true;
    else if (arg === '--dry-run' && command === 'import') options.dryRun = true;
    else if (!arg.startsWith('-') && command === 'import' && options.file === undefined) options.file = arg;
    else stop(EXIT.usage, `unknown option "${arg}"\n\n${PORTABILITY_USAGE}`);
  }
  if (!options.url) stop(EXIT.usage, `--url is required: the address of your Hearth server\n\n${PORTABILITY_USAGE}`);
  let base;
  try {
    base = new URL(options.url);
  } catch {
    stop(EXIT.usage, `--url ${options.url} is not an address; give the server's base URL, such as https://hearth.example.org`);
  }
  if (base.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(base.hostname)) {
    stop(EXIT.usage, `--url ${options.url} is plain http to another machine, which would send the token and your data in clear; use https`);
  }
  options.base = base.origin + base.pathname.replace(/\/+$/, '').replace(/\/api(\/v1)?$/, '');
  if (command === 'import' && !options.file) stop(EXIT.usage, `give the archive to import: hearth import --url ${options.url} <file.zip>`);
  options.token = process.env.HEARTH_TOKEN;
  if (!options.token) stop(EXIT.usage, 'HEARTH_TOKEN is not set: put the account\'s master token in the environment');
  options.passphrase = process.env.HEARTH_PASSPHRASE || undefined;
  if (options.secrets && !options.passphrase) stop(EXIT.usage, '--secrets needs HEARTH_PASSPHRASE: the passphrase that encrypts the secrets (at least 10 characters)');
  return options;
}

async function call(options, method, path, init = {}) {
  let res;
  try {
    res = await fetch(`${options.base}${path}`, { method, ...init, headers: { authorization: `Bearer ${options.token}`, ...init.headers } });
  } catch (error) {
    stop(EXIT.failed, `could not reach ${options.base}: ${error.cause?.message ?? error.message}; is Hearth running? is the address in --url right?`);
  }
  if (res.status >= 400) {
    const body = await res.json().catch(() => ({}));
    stop(res.status >= 500 ? EXIT.failed : EXIT.refused, `the server answered ${res.status}: ${body.message ?? res.statusText}`);
  }
  return res;
}

/** A progress bar on stderr when it is a terminal, a line per step otherwise. */
function progress(done, total) {
  const width = 30;
  const share = total > 0 ? done / total : 0;
  const bar = `${'#'.repeat(Math.round(share * width)).padEnd(width, '.')}`;
  if (process.stderr.isTTY) process.stderr.write(`\r[${bar}] ${done}/${total} records`);
}

async function runExport(options) {
  const body = options.secrets ? { includeSecrets: true, passphrase: options.passphrase } : {};
  let job = (await (await call(options, 'POST', '/api/v1/export', { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })).json()).data;
  while (job.status === 'running') {
    progress(job.progress.done, job.progress.total);
    await new Promise((resolve) => setTimeout(resolve, 500));
    job = (await (await call(options, 'GET', `/api/v1/export/${job.id}`)).json()).data;
  }
  progress(job.progress.done, job.progress.total);
  if (process.stderr.isTTY) process.stderr.write('\n');
  if (job.status !== 'done') stop(EXIT.failed, `the export ${job.status}: ${job.error ?? 'no reason given'}`);
  const out = options.out ?? `hearth-export-${job.createdAt.slice(0, 10)}.zip`;
  const res = await call(options, 'GET', job.downloadUrl.replace(/^\/?/, '/'));
  // Written beside the target and renamed once whole: an interrupted download leaves no half archive.
  const partial = `${out}.partial`;
  try {
    await pipeline(Readable.fromWeb(res.body), createWriteStream(partial, { mode: 0o600 }));
    renameSync(partial, out);
  } catch (error) {
    rmSync(partial, { force: true });
    stop(EXIT.failed, `the download stopped: ${error.message}`);
  }
  process.stdout.write(`${out} (${statSync(out).size} bytes, sha256 ${job.sha256})${job.includesSecrets ? ', secrets encrypted with your passphrase' : ''}\n`);
}

/**
 * The import's report from its answer: server-sent events once the archive is checked (progress
 * as the records are applied, then the report, or the error that stopped it midway), or JSON.
 */
async function importReport(res) {
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return (await res.json()).data;
  const decoder = new TextDecoder();
  let pending = '';
  let last;
  for await (const chunk of res.body) {
    pending += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const frame = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const event = /^event: (.+)$/m.exec(frame)?.[1];
      const data = JSON.parse(/^data: (.+)$/m.exec(frame)?.[1] ?? 'null');
      if (event === 'progress') progress(data.done, data.total);
      else last = { event, data };
    }
  }
  if (process.stderr.isTTY) process.stderr.write('\n');
  if (last?.event === 'done') return last.data;
  if (last?.event === 'error') stop(last.data.error === 'INTERNAL_ERROR' ? EXIT.failed : EXIT.refused, `the import stopped, and nothing was imported: ${last.data.message}`);
  stop(EXIT.failed, "the connection ended before the import's report came; check the account before trying again");
}

async function runImport(options) {
  let data;
  try {
    data = readFileSync(options.file);
  } catch (error) {
    stop(EXIT.usage, `cannot read ${options.file}: ${error.message}`);
  }
  const form = new FormData();
  form.append('file', new Blob([data], { type: 'application/zip' }), options.file.split(/[\\/]/).pop());
  if (options.passphrase) form.append('passphrase', options.passphrase);
  if (options.dryRun) form.append('dryRun', 'true');
  process.stderr.write(`${options.dryRun ? 'Checking' : 'Importing'} ${options.file} (${data.length} bytes)…\n`);
  const report = await importReport(await call(options, 'POST', '/api/v1/import', { body: form, headers: { accept: 'text/event-stream' } }));
  let conflicts = 0;
  process.stdout.write(`${report.dryRun ? 'Dry run: nothing was changed. What an import would do:' : 'Imported:'}\n`);
  for (const [table, counts] of Object.entries(report.tables)) {
    conflicts += counts.conflicts;
    if (counts.added + counts.unchanged + counts.conflicts + counts.skipped === 0) continue;
    process.stdout.write(`  ${table.padEnd(20)} added ${counts.added}, unchanged ${counts.unchanged}, conflicts ${counts.conflicts}, skipped ${counts.skipped}${counts.renumbered ? `, new ids ${counts.renumbered}` : ''}\n`);
  }
  for (const issue of report.issues) process.stdout.write(`  ${issue.outcome}: ${issue.table} ${issue.id}: ${issue.reason}\n`);
  for (const note of report.notes) process.stdout.write(`  note: ${note}\n`);
  if (conflicts > 0) process.exit(EXIT.conflicts);
}

export async function portability(command, argv) {
  const options = parse(command, argv);
  if (command === 'export') await runExport(options);
  else await runImport(options);
}
