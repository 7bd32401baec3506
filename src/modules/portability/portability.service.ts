/**
 * Export and import of an owner's whole account (docs/data-portability.md).
 *
 * An export is a job: the request records it and answers at once; the archive is written in the
 * background to `DATA_DIR/exports/<id>.zip.partial`, renamed to `<id>.zip` when complete, and
 * removed once it expires. One export runs per owner at a time (a unique index holds it, across
 * nodes). An import checks the whole archive, then writes it in one transaction: it all lands,
 * or nothing does; a dry run is the same work rolled back, so its report is exactly what an
 * import would do.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { AppError, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { isoIn, isoNow } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { Dialect } from '../../storage/dialect.js';
import type { AuditActor } from '../audit/audit.service.js';
import { MIN_PASSPHRASE_LENGTH } from './portability.crypto.js';
import { writeArchive, type OpenSealed } from './portability.export.js';
import { carriedTables, type CarriedDeclarations } from './portability.format.js';
import type { LimitName } from '../plans/plans.service.js';
import {
  applyArchive,
  archiveSecrets,
  IMPORTED_PLAN_LIMITS,
  openArchive,
  type ImportLimits,
  type ImportProgress,
  type ImportReport,
  type PlanCheck,
  type PlanChecks,
} from './portability.import.js';
import type { ExportJobsTable, PortabilityTables } from './portability.tables.js';

/** How long a finished archive can be downloaded. */
export const EXPORT_KEEP_MS = 24 * 60 * 60 * 1000;
/** A running export that has not moved for this long died with its process; another may start. */
const STALE_RUNNING_MS = 10 * 60 * 1000;
/** The largest archive an import takes, and the most its files may expand to, together and each. */
export const IMPORT_MAX_BYTES = 256 * 1024 * 1024;
const IMPORT_LIMITS: ImportLimits = { maxInflatedBytes: 1024 * 1024 * 1024, maxFileBytes: 256 * 1024 * 1024, maxEntries: 500_000 };

export interface ExportJob {
  id: string;
  status: 'running' | 'done' | 'failed' | 'expired';
  includesSecrets: boolean;
  progress: { done: number; total: number };
  sizeBytes: number | null;
  sha256: string | null;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
  expiresAt: string | null;
  downloadUrl: string | null;
}

/** Who asks, and the proof an export needs: the master token, or a login session with the account password. */
export interface OwnerProof {
  callerKind: 'master' | 'session' | 'api' | 'handshake' | 'oauth';
  password?: string | undefined;
}

export interface PortabilityDeps {
  db: Executor<PortabilityTables>;
  /** The carried tables' declarations, by their owning modules (see `CarriedDeclarations`). */
  carried: CarriedDeclarations;
  dialect: Dialect;
  dataDir: string;
  keyring: { seal(ownerId: string, context: string, plaintext: string): Promise<string>; open: OpenSealed };
  audit: { record(actor: AuditActor, event: { action: string; outcome: 'success' | 'failure' | 'denied'; targetType?: string; targetId?: string; details?: Record<string, unknown> }, trx?: Executor): Promise<void> };
  confirmPassword(ownerId: string, password: string, actor: AuditActor): Promise<boolean>;
  /**
   * Told inside an import's transaction, once its rows are written and before it commits (or is
   * rolled back): what a module keeps in the process of the owner's rows must be read again
   * (memory's text keys on SQLite, which an import's entries would otherwise miss).
   */
  imported?(ownerId: string): void;
  /** Reports an export that failed (the job records why too). */
  onExportFailure?(error: unknown): void;
  /**
   * The plan limits (billing.limits.ts, `limitFor`): an import counts what it adds against the
   * owner's plan in its transaction, as memory and the knowledge base count their writes.
   * Without it nothing is counted, as with plan limits off.
   */
  limits?: { limitFor(ownerId: string, limit: LimitName): Promise<PlanCheck | undefined> };
}

/** How often each node clears its exports folder of archives no download may still ask for. */
const SWEEP_FILES_EVERY_MS = 60 * 60 * 1000;
/** The files an export writes: `<job id>.zip`, and `<job id>.zip.partial` while it writes. */
const EXPORT_FILE = /^(exp_[0-9A-Za-z]+)\.zip(\.partial)?$/;

function toJob(row: ExportJobsTable): ExportJob {
  return {
    id: row.id,
    status: row.status,
    includesSecrets: row.include_secrets === 1,
    progress: { done: Number(row.done_items), total: Number(row.total_items) },
    sizeBytes: row.size_bytes === null ? null : Number(row.size_bytes),
    sha256: row.sha256,
    error: row.error,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    expiresAt: row.expires_at,
    downloadUrl: row.status === 'done' ? `/api/v1/export/${row.id}/download` : null,
  };
}

class DryRunDone extends Error {
  constructor(readonly report: ImportReport) {
    super('dry run');
  }
}

export function createPortabilityService(deps: PortabilityDeps) {
  const { db, audit } = deps;
  const d = db as Executor;
  const tables = carriedTables(deps.carried);
  const dir = path.join(deps.dataDir, 'exports');
  const running = new Set<Promise<void>>();
  const finalPath = (id: string) => path.join(dir, `${id}.zip`);
  // Imports of this process in progress: each holds its archive and one inflated file in memory
  // (up to IMPORT_MAX_BYTES and ImportLimits.maxFileBytes), so they run one at a time.
  let importing = false;

  async function prove(ownerId: string, proof: OwnerProof, actor: AuditActor, what: string): Promise<void> {
    if (proof.callerKind === 'master') return;
    if (proof.callerKind === 'session') {
      if (proof.password === undefined) {
        throw new AppError('FORBIDDEN', `${what} from a login session needs the account password: send "password": "…" with the request, or use the master token`);
      }
      if (await deps.confirmPassword(ownerId, proof.password, actor)) return;
      await audit.record(actor, { action: 'portability.export', outcome: 'denied', details: { reason: 'wrong password' } });
      throw new AppError('FORBIDDEN', `The password is wrong; ${what.toLowerCase()} was not started`);
    }
    throw new AppError('FORBIDDEN', 'Only the owner (the master token, or a login session with the account password) may do this');
  }

  /**
   * Removes the files of this node's exports folder that no download may still ask for: an
   * archive whose export expired, failed or is gone, and a partial archive whose export is not
   * running (its process was killed mid-way). Archives hold the owner's data (and, encrypted,
   * secrets): they must not outlive their 24 hours because nobody asked for an export since,
   * nor stay forever after a crash. Each node sweeps the folder it writes to, since an archive
   * lives on the node that wrote it, which may not be the node that marks its export expired.
   */
  async function sweepFiles(now = Date.now()): Promise<void> {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return; // No exports folder: nothing was ever exported on this node.
    }
    const files = names.flatMap((name) => {
      const match = EXPORT_FILE.exec(name);
      return match ? [{ name, id: match[1]!, partial: match[2] !== undefined }] : [];
    });
    const jobs = new Map<string, Pick<ExportJobsTable, 'status' | 'expires_at' | 'updated_at'>>();
    const ids = [...new Set(files.map((file) => file.id))];
    for (let start = 0; start < ids.length; start += 500) {
      const rows = (await d
        .selectFrom('export_jobs')
        .select(['id', 'status', 'expires_at', 'updated_at'])
        .where('id', 'in', ids.slice(start, start + 500))
        .execute()) as Array<Pick<ExportJobsTable, 'id' | 'status' | 'expires_at' | 'updated_at'>>;
      for (const row of rows) jobs.set(row.id, row);
    }
    const nowIso = new Date(now).toISOString();
    const staleIso = new Date(now - STALE_RUNNING_MS).toISOString();
    for (const file of files) {
      const job = jobs.get(file.id);
      // A running export's archive is kept from its first byte until it is marked done (renamed
      // first, marked after): a running job with a finished file is one about to be done.
      const running = job?.status === 'running' && job.updated_at >= staleIso;
      const keep = file.partial ? running : running || (job?.status === 'done' && job.expires_at !== null && job.expires_at > nowIso);
      if (!keep) rmSync(path.join(dir, file.name), { force: true });
    }
  }

  /** Removes the archives whose time is up, and marks the exports whose process died. */
  async function sweep(now = Date.now()): Promise<void> {
    const expired = (await d
      .selectFrom('export_jobs')
      .select('id')
      .where('status', '=', 'done')
      .where('expires_at', '<', new Date(now).toISOString())
      .execute()) as Array<{ id: string }>;
    for (const { id } of expired) {
      rmSync(finalPath(id), { force: true });
      await d.updateTable('export_jobs').set({ status: 'expired', updated_at: isoNow() }).where('id', '=', id).execute();
    }
    // Archives whose job is gone (their account was deleted, maybe through another node): removed
    // here too, a bounded number per sweep.
    const archives = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.zip')).slice(0, 500) : [];
    if (archives.length > 0) {
      const ids = archives.map((name) => name.slice(0, -'.zip'.length));
      const known = new Set(((await d.selectFrom('export_jobs').select('id').where('id', 'in', ids).execute()) as Array<{ id: string }>).map((row) => row.id));
      for (const id of ids) if (!known.has(id)) rmSync(finalPath(id), { force: true });
    }
    await d
      .updateTable('export_jobs')
      .set({ status: 'failed', error: 'The export stopped when the server did; start it again', updated_at: isoNow() })
      .where('status', '=', 'running')
      .where('updated_at', '<', new Date(now - STALE_RUNNING_MS).toISOString())
      .execute();
  }

  async function runExport(job: { id: string; ownerId: string; passphrase: string | undefined; actor: AuditActor }): Promise<void> {
    const partial = path.join(dir, `${job.id}.zip.partial`);
    let lastTick = 0;
    try {
      const result = await writeArchive({
        db,
        tables,
        ownerId: job.ownerId,
        path: partial,
        passphrase: job.passphrase,
        openSealed: deps.keyring.open,
        now: isoNow(),
        onProgress: async (done, total) => {
          // A few updates a second at most: progress is for people, and each is a write.
          if (Date.now() - lastTick < 250 && done < total) return;
          lastTick = Date.now();
          await d.updateTable('export_jobs').set({ done_items: done, total_items: total, updated_at: isoNow() }).where('id', '=', job.id).execute();
        },
      });
      renameSync(partial, finalPath(job.id));
      const total = Object.values(result.manifest.counts).reduce((a, b) => a + b, 0);
      const finished = await d
        .updateTable('export_jobs')
        .set({
          status: 'done',
          done_items: total,
          total_items: total,
          size_bytes: result.bytes,
          sha256: result.sha256,
          finished_at: isoNow(),
          updated_at: isoNow(),
          expires_at: isoIn(EXPORT_KEEP_MS),
        })
        .where('id', '=', job.id)
        .executeTakeFirst();
      // The job is gone: its account was deleted while the archive was written. The archive goes
      // too, and nothing is recorded for an account that no longer exists.
      if (Number(finished.numUpdatedRows) === 0) {
        rmSync(finalPath(job.id), { force: true });
        return;
      }
      await audit.record(job.actor, {
        action: 'portability.export',
        outcome: 'success',
        targetType: 'export',
        targetId: job.id,
        details: { phase: 'finished', bytes: result.bytes, counts: result.manifest.counts, includesSecrets: job.passphrase !== undefined },
      });
    } catch (error) {
      rmSync(partial, { force: true });
      deps.onExportFailure?.(error);
      const message = error instanceof AppError ? error.message : 'The export failed on the server; try again, and see the server log if it fails again';
      const failed = await d
        .updateTable('export_jobs')
        .set({ status: 'failed', error: message, finished_at: isoNow(), updated_at: isoNow() })
        .where('id', '=', job.id)
        .executeTakeFirst();
      if (Number(failed.numUpdatedRows) === 0) return;
      await audit.record(job.actor, { action: 'portability.export', outcome: 'failure', targetType: 'export', targetId: job.id, details: { reason: message } });
    }
  }

  let sweeper: NodeJS.Timeout | undefined;
  /** The periodic sweep: the jobs' states, then this node's files; a failure waits for the next one. */
  async function sweepAll(log?: { warn(object: Record<string, unknown>, message: string): void }): Promise<void> {
    try {
      await sweep();
      await sweepFiles();
    } catch (error) {
      log?.warn({ err: error }, 'Clearing expired export archives failed; it is tried again within the hour');
    }
  }

  return {
    /**
     * Takes this process's one import slot before an archive is read, or refuses (503 with
     * Retry-After): several imports at once would each hold an archive in memory. The answer
     * releases it once the import (or dry run) is over.
     */
    reserveImport(): () => void {
      if (importing) {
        throw new AppError('RATE_LIMITED', 'Another import is being read or applied on this server; imports run one at a time. Send the archive again in a few seconds', {
          status: 503,
          headers: { 'Retry-After': '5' },
        });
      }
      importing = true;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        importing = false;
      };
    },

    /**
     * Clears the archives left by exports that expired, failed or were cut short by a stopped
     * process, at once and then every hour (the container's part, on start).
     */
    async start(log: { warn(object: Record<string, unknown>, message: string): void }): Promise<void> {
      await sweepAll(log);
      sweeper = setInterval(() => void sweepAll(log), SWEEP_FILES_EVERY_MS);
      sweeper.unref();
    },

    /** Starts an export; 409 while another of the owner's runs. */
    async startExport(ownerId: string, input: { includeSecrets?: boolean | undefined; passphrase?: string | undefined }, proof: OwnerProof, actor: AuditActor): Promise<ExportJob> {
      await prove(ownerId, proof, actor, 'An export');
      if (input.includeSecrets && (input.passphrase === undefined || input.passphrase.length < MIN_PASSPHRASE_LENGTH)) {
        throw new AppError(
          'VALIDATION_ERROR',
          `Secrets are exported only encrypted with a passphrase of at least ${MIN_PASSPHRASE_LENGTH} characters: send "passphrase" (keep it: the secrets cannot be read without it)`,
          { details: [{ field: 'passphrase', message: `at least ${MIN_PASSPHRASE_LENGTH} characters are needed with includeSecrets` }] },
        );
      }
      await sweep();
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const now = isoNow();
      const id = newId('exp');
      try {
        await d
          .insertInto('export_jobs')
          .values({ id, owner_id: ownerId, status: 'running', include_secrets: input.includeSecrets ? 1 : 0, done_items: 0, total_items: 0, created_at: now, updated_at: now })
          .execute();
      } catch (error) {
        const other = (await d.selectFrom('export_jobs').select('id').where('owner_id', '=', ownerId).where('status', '=', 'running').executeTakeFirst()) as { id: string } | undefined;
        if (!other) throw error;
        throw new AppError('CONFLICT', `Export ${other.id} is still running: wait for it (GET /api/v1/export/${other.id}) before starting another`);
      }
      await audit.record(actor, { action: 'portability.export', outcome: 'success', targetType: 'export', targetId: id, details: { phase: 'started', includesSecrets: Boolean(input.includeSecrets) } });
      const work = runExport({ id, ownerId, passphrase: input.includeSecrets ? input.passphrase : undefined, actor }).finally(() => running.delete(work));
      running.add(work);
      return toJob((await d.selectFrom('export_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow()) as ExportJob & ExportJobsTable);
    },

    async getExport(ownerId: string, id: string): Promise<ExportJob> {
      await sweep();
      const row = (await d.selectFrom('export_jobs').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst()) as ExportJobsTable | undefined;
      if (!row) throw notFound('Export', id);
      return toJob(row);
    },

    /** The finished archive's file, for the download route. */
    async exportFile(ownerId: string, id: string, actor: AuditActor): Promise<{ file: string; size: number; filename: string }> {
      const job = await this.getExport(ownerId, id);
      if (job.status === 'running') throw new AppError('CONFLICT', `Export ${id} is still running (${job.progress.done} of ${job.progress.total}); download it once its status is done`);
      if (job.status !== 'done') throw new AppError('NOT_FOUND', `Export ${id} is ${job.status}${job.error ? ` (${job.error})` : ''}: start a new export`);
      const file = finalPath(id);
      let size: number;
      try {
        size = statSync(file).size;
      } catch {
        throw new AppError('NOT_FOUND', `The archive of export ${id} is not on this server (it may have been written by another node, or removed): start a new export`);
      }
      await audit.record(actor, { action: 'portability.download', outcome: 'success', targetType: 'export', targetId: id });
      return { file, size, filename: `hearth-export-${job.createdAt.slice(0, 10)}-${id}.zip` };
    },

    /**
     * Checks and writes an archive into the owner's account, or (dryRun) says what that would do.
     * `onProgress` is first told once the archive is checked and its records are being applied:
     * a refusal before that (a damaged archive, a wrong passphrase) throws without it.
     */
    async importArchive(
      ownerId: string,
      input: { data: Buffer; passphrase?: string | undefined; dryRun: boolean },
      actor: AuditActor,
      onProgress?: ImportProgress,
    ): Promise<ImportReport> {
      const started = Date.now();
      let report: ImportReport;
      try {
        const archive = openArchive(input.data, IMPORT_LIMITS);
        const secrets = await archiveSecrets(archive, input.passphrase);
        // The owner's data key is made (or read) before the transaction: the keyring writes it
        // through the pool, which on SQLite is the one connection the transaction holds. The
        // owner's plan is read before it too, for the same reason; the counts are made in it.
        await deps.keyring.seal(ownerId, 'portability:import', '');
        const limits: PlanChecks = {};
        for (const limit of IMPORTED_PLAN_LIMITS) {
          const check = await deps.limits?.limitFor(ownerId, limit);
          if (check) limits[limit] = check;
        }
        report = await db.transaction().execute(async (trx) => {
          const result = await applyArchive({ trx, tables, dialect: deps.dialect, ownerId, archive, secrets, seal: deps.keyring.seal, dryRun: input.dryRun, onProgress, limits });
          // Before the commit: on SQLite no other transaction runs until this one ends, so nothing
          // reads the owner's rows again before they are there. A dry run writes nothing that stays.
          if (!input.dryRun && (result.tables.memory_entries?.added ?? 0) > 0) deps.imported?.(ownerId);
          if (input.dryRun) throw new DryRunDone(result);
          await audit.record(actor, { action: 'portability.import', outcome: 'success', details: summary(result, started) }, trx);
          return result;
        });
      } catch (error) {
        if (error instanceof DryRunDone) {
          await audit.record(actor, { action: 'portability.import', outcome: 'success', details: summary(error.report, started) });
          return error.report;
        }
        const reason = error instanceof AppError ? error.message : 'server error';
        await audit.record(actor, { action: 'portability.import', outcome: 'failure', details: { reason: reason.slice(0, 500), dryRun: input.dryRun } });
        throw error;
      }
      return report;
    },

    /** The ids of the owner's exports, whatever their state: what `removeArchives` takes once the account is erased. */
    async exportIdsOf(ownerId: string): Promise<string[]> {
      const rows = (await d.selectFrom('export_jobs').select('id').where('owner_id', '=', ownerId).execute()) as Array<{ id: string }>;
      return rows.map((row) => row.id);
    },

    /**
     * Removes these exports' archives from this node's disk, finished or half-written; answers
     * how many files there were. An archive another node wrote is removed by that node's next
     * sweep, which finds no job for it.
     */
    removeArchives(ids: readonly string[]): number {
      let removed = 0;
      for (const id of ids) {
        for (const file of [finalPath(id), path.join(dir, `${id}.zip.partial`)]) {
          if (!existsSync(file)) continue;
          rmSync(file, { force: true });
          removed += 1;
        }
      }
      return removed;
    },

    /** Waits for the exports this process is writing (the container's part, on close). */
    async drain(): Promise<void> {
      if (sweeper) clearInterval(sweeper);
      await Promise.allSettled([...running]);
    },
  };
}

function summary(report: ImportReport, started: number): Record<string, unknown> {
  const totals = { added: 0, unchanged: 0, conflicts: 0, skipped: 0, renumbered: 0 };
  for (const counts of Object.values(report.tables)) for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += counts[key];
  return { dryRun: report.dryRun, ...totals, ms: Date.now() - started };
}

export type PortabilityService = ReturnType<typeof createPortabilityService>;
