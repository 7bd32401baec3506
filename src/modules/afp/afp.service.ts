import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { AppError, InputError, notFound, type ErrorCode } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { constantTimeEqual, hashToken } from '../../lib/crypto.js';
import { isoNow } from '../../lib/time.js';
import { isUniqueViolation } from '../../storage/storage.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import {
  CLOSE,
  LIMITS,
  OPS,
  OpResults,
  type DeviceErrorCode,
  type Hello,
  type Op,
  type OpArgsOf,
  type OpResultOf,
} from '../../shared/afp.protocol.js';
import type { DeviceReport, AfpRepo, DeviceRow } from './afp.repo.js';
import type { DeviceRelay } from './afp.relay.js';
import type { Device } from './afp.schemas.js';
import type { LimitsService } from '../billing/billing.limits.js';

/**
 * How long the server waits for exec beyond the command's own timeout before answering 504, so
 * that the daemon's own answer (with the output so far) usually arrives first; never past the
 * specification's hard limit of 60 s.
 */
export const EXEC_GRACE_MS = 5_000;
export const EXEC_HARD_LIMIT_MS = 60_000;

/** How each refusal of the daemon is answered. */
const DEVICE_ERROR_STATUS: Record<DeviceErrorCode, ErrorCode> = {
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  INVALID: 'VALIDATION_ERROR',
  CONFLICT: 'CONFLICT',
  TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  TIMEOUT: 'DEVICE_TIMEOUT',
  BUSY: 'RATE_LIMITED',
  INTERNAL: 'UPSTREAM_ERROR',
};

const resultCheckers = Object.fromEntries(OPS.map((op) => [op, TypeCompiler.Compile<TSchema>(OpResults[op])])) as Record<Op, TypeCheck<TSchema>>;

function toDevice(row: DeviceRow, live: { lastSeenAt: string } | undefined): Device {
  return {
    id: row.id,
    name: row.name,
    platform: row.platform,
    privilege: row.privilege,
    status: live ? 'online' : 'offline',
    lastSeenAt: live?.lastSeenAt ?? row.last_seen_at,
    root: row.root,
    version: row.daemon_version,
    createdAt: row.created_at,
  };
}

/**
 * Absolute on the device's own terms: `/…` on Linux and macOS, `C:\…` or `\\server\…` on Windows.
 * `field` is the input's own name (`path`, `cwd`); the route says where the request carried it.
 */
export function checkAbsolutePath(field: string, value: string): void {
  if (value.includes('\0')) {
    throw new InputError(field, 'contains NUL', `${field} must not contain NUL characters`);
  }
  if (!/^(\/|[A-Za-z]:[\\/]|\\\\)/.test(value)) {
    throw new InputError(field, 'must be absolute', `${field} must be an absolute path on the device (/home/me/notes.txt, or C:\\Users\\me\\notes.txt on Windows)`);
  }
}

function auditOutcome(error: unknown): 'denied' | 'failure' {
  return error instanceof AppError && error.code === 'FORBIDDEN' ? 'denied' : 'failure';
}

export interface AfpServiceDeps {
  repo: AfpRepo;
  relay: DeviceRelay;
  audit: Pick<AuditService, 'record'>;
  /** How long ls, read, write, stat, rm and mkdir wait for the daemon before 504. */
  requestTimeoutMs: number;
  /** The plan's devices limit (billing), checked before a new device is registered. */
  limits?: Pick<LimitsService, 'assertCanAdd'>;
}

export function createAfpService(deps: AfpServiceDeps) {
  const { repo, relay, audit } = deps;

  /**
   * The one place a device is first registered, so the plan's devices limit is checked here. A
   * refusal (PLAN_LIMIT_REACHED) closes the daemon's link with 4403 and its message; the daemon stops.
   */
  async function addDevice(ownerId: string, name: string, report: DeviceReport, keyHash: string, actor: AuditActor): Promise<DeviceRow> {
    await deps.limits?.assertCanAdd(ownerId, 'devices', 1, () => repo.count(ownerId));
    const row: DeviceRow = { id: newId('dev'), owner_id: ownerId, name, ...report, created_at: report.last_seen_at, key_hash: keyHash };
    await repo.insert(row);
    await audit.record(actor, {
      action: 'afp.device.register',
      outcome: 'success',
      targetType: 'afp_device',
      targetId: row.id,
      details: { name, platform: report.platform, privilege: report.privilege },
    });
    return row;
  }

  /** Sends one operation and answers its result, or the daemon's refusal as an AppError. */
  async function run<O extends Op>(ownerId: string, deviceId: string, op: O, args: OpArgsOf<O>, timeoutMs: number, tokenId?: string | null): Promise<OpResultOf<O>> {
    let outcome;
    try {
      outcome = await relay.send(ownerId, deviceId, op, args as Record<string, unknown>, timeoutMs, tokenId);
    } catch (error) {
      // No live link: an unknown or foreign device is 404, a known one is offline.
      if (error instanceof AppError && error.code === 'DEVICE_OFFLINE' && !(await repo.get(ownerId, deviceId))) {
        throw notFound('Device', deviceId);
      }
      throw error;
    }
    if (!outcome.ok) {
      const { code, message, details } = outcome.error;
      throw new AppError(DEVICE_ERROR_STATUS[code], message, details === undefined ? {} : { details });
    }
    if (!resultCheckers[op].Check(outcome.result)) {
      throw new AppError('UPSTREAM_ERROR', `Device ${deviceId} answered ${op} with a malformed result; update its daemon`);
    }
    return outcome.result as OpResultOf<O>;
  }

  /** Runs a changing operation and writes it to the audit log, whatever the outcome. */
  async function audited<O extends Op>(
    actor: AuditActor,
    ownerId: string,
    deviceId: string,
    op: O,
    args: OpArgsOf<O>,
    timeoutMs: number,
    details: Record<string, unknown>,
  ): Promise<OpResultOf<O>> {
    const event = { action: `afp.${op}`, targetType: 'afp_device', targetId: deviceId };
    try {
      const result = await run(ownerId, deviceId, op, args, timeoutMs, actor.tokenId);
      const exitCode = op === 'exec' ? { exitCode: (result as OpResultOf<'exec'>).exitCode } : {};
      await audit.record(actor, { ...event, outcome: 'success', details: { ...details, ...exitCode } });
      return result;
    } catch (error) {
      const code = error instanceof AppError ? error.code : 'INTERNAL_ERROR';
      await audit.record(actor, { ...event, outcome: auditOutcome(error), details: { ...details, error: code } });
      throw error;
    }
  }

  return {
    /**
     * A daemon said hello: the device of this owner and name, created on its first connection
     * and bound to the daemon's device key. A hello for an existing device with another key (a
     * second daemon, whatever `devices` token it holds) is refused and audited, and changes
     * nothing: the device keeps its link, privilege and root. Its owner removes the device to
     * register that name again.
     */
    async registerDevice(ownerId: string, hello: Hello, actor: AuditActor): Promise<DeviceRow> {
      if (!hello.key) throw new AppError('VALIDATION_ERROR', 'hello carries no device key: download the daemon again');
      const keyHash = hashToken(hello.key);
      const report: DeviceReport = {
        platform: hello.platform,
        privilege: hello.privilege,
        root: hello.root,
        daemon_version: hello.version,
        last_seen_at: isoNow(),
      };
      /**
       * Passes when `keyHash` is the device's key; otherwise audits and refuses. A device
       * registered before device keys existed has none, and nothing tells which daemon is its
       * own: it is refused too, until its owner removes it and its daemon registers it anew.
       */
      const check = async (row: DeviceRow): Promise<void> => {
        if (row.key_hash !== null && constantTimeEqual(row.key_hash, keyHash)) return;
        const unkeyed = row.key_hash === null;
        await audit.record(actor, {
          action: 'afp.device.connect',
          outcome: 'denied',
          targetType: 'afp_device',
          targetId: row.id,
          details: {
            name: row.name,
            reason: unkeyed ? 'device registered before device keys' : 'device key mismatch',
            platform: hello.platform,
            privilege: hello.privilege,
          },
        });
        // A close reason holds 123 bytes: the id first, then what to do.
        throw new AppError(
          'FORBIDDEN',
          unkeyed
            ? `device ${row.id} predates device keys: its owner removes it, then this daemon can register it again`
            : `device ${row.id} is bound to another daemon's key; remove it to register again, or use another --name`,
        );
      };
      const existing = await repo.findByName(ownerId, hello.name);
      if (existing) {
        await check(existing);
        const updated = await repo.report(existing.id, report);
        if (updated) return updated;
      }
      try {
        return await addDevice(ownerId, hello.name, report, keyHash, actor);
      } catch (error) {
        // Two daemons of the same name said hello at once: the other one created it.
        if (!isUniqueViolation(error)) throw error;
        const created = await repo.findByName(ownerId, hello.name);
        if (!created) throw error;
        await check(created);
        return (await repo.report(created.id, report)) ?? created;
      }
    },

    /** Remembers when a device was last heard from (the live value is the relay's). */
    async deviceSeen(deviceId: string, at: string): Promise<void> {
      await repo.touch(deviceId, at);
    },

    /** How many devices the owner has registered: what the plan's devices limit counts. */
    async countDevices(ownerId: string): Promise<number> {
      return repo.count(ownerId);
    },

    async list(ownerId: string): Promise<Device[]> {
      const rows = await repo.list(ownerId);
      const live = await relay.presence(rows.map((row) => row.id));
      return rows.map((row) => toDevice(row, live.get(row.id)));
    },

    async get(ownerId: string, deviceId: string): Promise<Device> {
      const row = await repo.get(ownerId, deviceId);
      if (!row) throw notFound('Device', deviceId);
      return toDevice(row, (await relay.presence([row.id])).get(row.id));
    },

    /** Forgets a device and closes its daemon's connection; the daemon stops. */
    async forget(ownerId: string, deviceId: string, actor: AuditActor): Promise<Device> {
      const row = await repo.delete(ownerId, deviceId);
      if (!row) throw notFound('Device', deviceId);
      const live = (await relay.presence([row.id])).get(row.id);
      await relay.disconnect(row.id, CLOSE.FORGOTTEN, 'the owner removed this device');
      await audit.record(actor, { action: 'afp.device.forget', outcome: 'success', targetType: 'afp_device', targetId: row.id, details: { name: row.name } });
      return toDevice(row, live);
    },

    async ls(ownerId: string, deviceId: string, path: string) {
      checkAbsolutePath('path', path);
      return run(ownerId, deviceId, 'ls', { path }, deps.requestTimeoutMs);
    },

    async read(ownerId: string, deviceId: string, path: string, encoding: 'utf8' | 'base64' | undefined) {
      checkAbsolutePath('path', path);
      return run(ownerId, deviceId, 'read', encoding ? { path, encoding } : { path }, deps.requestTimeoutMs);
    },

    async stat(ownerId: string, deviceId: string, path: string) {
      checkAbsolutePath('path', path);
      return run(ownerId, deviceId, 'stat', { path }, deps.requestTimeoutMs);
    },

    async write(ownerId: string, deviceId: string, input: OpArgsOf<'write'>, actor: AuditActor) {
      checkAbsolutePath('path', input.path);
      const bytes = input.encoding === 'base64' ? Math.floor((input.content.replace(/[\s=]/g, '').length * 3) / 4) : Buffer.byteLength(input.content, 'utf8');
      if (bytes > LIMITS.maxFileBytes) {
        throw new AppError('PAYLOAD_TOO_LARGE', `The content is ${bytes} bytes; write takes at most ${LIMITS.maxFileBytes} (10 MiB)`, {
          details: { bytes, maxBytes: LIMITS.maxFileBytes },
        });
      }
      // The audit log keeps the path and the size, never the content.
      return audited(actor, ownerId, deviceId, 'write', input, deps.requestTimeoutMs, { path: input.path, bytes, encoding: input.encoding });
    },

    async exec(ownerId: string, deviceId: string, input: OpArgsOf<'exec'>, actor: AuditActor) {
      if (input.cwd !== undefined) checkAbsolutePath('cwd', input.cwd);
      return audited(actor, ownerId, deviceId, 'exec', input, Math.min(input.timeout + EXEC_GRACE_MS, EXEC_HARD_LIMIT_MS), {
        cmd: input.cmd.length > 2000 ? `${input.cmd.slice(0, 2000)}…` : input.cmd,
        ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
        timeoutMs: input.timeout,
      });
    },

    async rm(ownerId: string, deviceId: string, input: OpArgsOf<'rm'>, actor: AuditActor) {
      checkAbsolutePath('path', input.path);
      return audited(actor, ownerId, deviceId, 'rm', input, deps.requestTimeoutMs, { path: input.path, recursive: input.recursive });
    },

    async mkdir(ownerId: string, deviceId: string, input: OpArgsOf<'mkdir'>, actor: AuditActor) {
      checkAbsolutePath('path', input.path);
      return audited(actor, ownerId, deviceId, 'mkdir', input, deps.requestTimeoutMs, { path: input.path, recursive: input.recursive });
    },
  };
}

export type AfpService = ReturnType<typeof createAfpService>;
