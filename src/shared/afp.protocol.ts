/**
 * The AFP wire protocol: JSON text frames over the one WebSocket the daemon opens towards the
 * server (GET /api/v1/afp/connect, bearer token with the `devices` scope).
 *
 *   daemon → server   hello      { protocol, name, platform, privilege, root, version, key }
 *   server → daemon   registered { deviceId, heartbeatMs }
 *   daemon → server   heartbeat  every heartbeatMs; the server answers heartbeat
 *   server → daemon   request    { id, op, args }
 *   daemon → server   response   { id, ok: true, result } | { id, ok: false, error: { code, message, details? } }
 *
 * Both the server and the daemon import this file (the daemon bundles it), so it imports
 * nothing but TypeBox. The schemas validate every frame on both sides and describe the
 * operations' results in the OpenAPI document.
 */
import { FormatRegistry, Type, type Static, type TSchema } from '@sinclair/typebox';

// TypeBox's checker knows no formats until they are registered; the results carry ISO times.
if (!FormatRegistry.Has('date-time')) {
  FormatRegistry.Set('date-time', (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value) && !Number.isNaN(Date.parse(value)));
}

/** 2: hello carries the daemon's device key, which binds a device to the daemon that registered it. */
export const PROTOCOL_VERSION = 2;

/** Where the daemon connects, below the server's base address. */
export const CONNECT_PATH = '/api/v1/afp/connect';

/** Privileges, each including the ones before it. */
export const PRIVILEGES = ['read', 'write', 'exec'] as const;
export type Privilege = (typeof PRIVILEGES)[number];

export const OPS = ['ls', 'read', 'write', 'exec', 'stat', 'rm', 'mkdir'] as const;
export type Op = (typeof OPS)[number];

/** The privilege each operation needs; the daemon refuses anything above its own. */
export const OP_PRIVILEGE: Record<Op, Privilege> = {
  ls: 'read',
  read: 'read',
  stat: 'read',
  write: 'write',
  mkdir: 'write',
  rm: 'write',
  exec: 'exec',
};

export function privilegeAllows(held: Privilege, needed: Privilege): boolean {
  return PRIVILEGES.indexOf(held) >= PRIVILEGES.indexOf(needed);
}

const MiB = 1024 * 1024;

export const LIMITS = {
  /** Largest WebSocket message either side accepts. */
  maxMessageBytes: 16 * MiB,
  /** Largest file `read` answers and `write` takes (base64 makes it about 13.4 MiB on the wire). */
  maxFileBytes: 10 * MiB,
  /** Each of stdout and stderr of `exec` is cut here (`truncated: true`). */
  maxOutputBytes: 1 * MiB,
  /** `ls` lists at most this many entries (`truncated: true` beyond). */
  maxEntries: 10_000,
  execDefaultTimeoutMs: 30_000,
  execMaxTimeoutMs: 60_000,
  /** Requests one device runs at once; more answer 429 on the server and BUSY on the daemon. */
  maxConcurrentRequests: 16,
  maxCommandLength: 64 * 1024,
  maxPathLength: 4096,
} as const;

/** WebSocket close codes the server uses; the daemon stops for good on the 44xx ones. */
export const CLOSE = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  /** A frame broke the protocol (bad hello, unknown version): upgrade the daemon. */
  PROTOCOL: 4400,
  /** The token was revoked or lost the `devices` scope. */
  UNAUTHORIZED: 4401,
  /**
   * The server refused to register the device: a plan limit, or a device of that name that is
   * bound to another daemon's device key (the reason says which and what to do).
   */
  REFUSED: 4403,
  /** The owner removed the device (DELETE /api/v1/afp/devices/{id}). */
  FORGOTTEN: 4404,
  /** No heartbeat for too long. */
  HEARTBEAT: 4408,
  /** Another connection of the same device (same name and device key) took over, e.g. a copy of the daemon. */
  REPLACED: 4409,
} as const;

/** Close codes after which reconnecting cannot help. */
export const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([CLOSE.PROTOCOL, CLOSE.UNAUTHORIZED, CLOSE.REFUSED, CLOSE.FORGOTTEN, CLOSE.REPLACED]);

// Operation arguments: the daemon checks them again whatever the server sent.

const PathArg = Type.String({ minLength: 1, maxLength: LIMITS.maxPathLength });

export const OpArgs = {
  ls: Type.Object({ path: PathArg }),
  read: Type.Object({ path: PathArg, encoding: Type.Optional(Type.Union([Type.Literal('utf8'), Type.Literal('base64')])) }),
  write: Type.Object({ path: PathArg, content: Type.String(), encoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')]) }),
  exec: Type.Object({
    cmd: Type.String({ minLength: 1, maxLength: LIMITS.maxCommandLength }),
    cwd: Type.Optional(PathArg),
    timeout: Type.Integer({ minimum: 1, maximum: LIMITS.execMaxTimeoutMs }),
  }),
  stat: Type.Object({ path: PathArg }),
  rm: Type.Object({ path: PathArg, recursive: Type.Boolean() }),
  mkdir: Type.Object({ path: PathArg, recursive: Type.Boolean() }),
} satisfies Record<Op, TSchema>;

export type OpArgsOf<O extends Op> = Static<(typeof OpArgs)[O]>;

// Operation results: what the API answers in `data`.

const EntryType = Type.Union([Type.Literal('file'), Type.Literal('directory'), Type.Literal('symlink'), Type.Literal('other')], {
  description: 'file, directory, symlink (ls shows links as they are) or other (device, socket, pipe)',
});
const ModifiedAt = Type.String({ format: 'date-time', description: 'Last modification, ISO 8601 UTC' });
const ResolvedPath = Type.String({ description: 'The absolute path on the device, symbolic links resolved' });

export const OpResults = {
  ls: Type.Object(
    {
      path: ResolvedPath,
      entries: Type.Array(
        Type.Object({
          name: Type.String(),
          type: EntryType,
          size: Type.Integer({ description: 'Bytes (of the link itself for a symlink)' }),
          modifiedAt: ModifiedAt,
        }),
        { description: 'Sorted by name' },
      ),
      truncated: Type.Boolean({ description: `True when the directory holds more than ${LIMITS.maxEntries} entries and only the first ones are listed` }),
    },
    { title: 'AfpDirectoryListing' },
  ),
  read: Type.Object(
    {
      path: ResolvedPath,
      content: Type.String(),
      encoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')], {
        description: 'utf8 for text; base64 for binary files (a NUL byte or invalid UTF-8), or when asked for',
      }),
      size: Type.Integer({ description: 'Bytes of the file' }),
    },
    { title: 'AfpFileContent' },
  ),
  write: Type.Object(
    {
      path: ResolvedPath,
      size: Type.Integer({ description: 'Bytes written' }),
      created: Type.Boolean({ description: 'True when the file did not exist before' }),
    },
    { title: 'AfpWriteResult' },
  ),
  exec: Type.Object(
    {
      stdout: Type.String(),
      stderr: Type.String(),
      exitCode: Type.Union([Type.Integer(), Type.Null()], { description: 'Null when the command was ended by a signal' }),
      signal: Type.Union([Type.String(), Type.Null()], { description: 'The signal that ended the command, if one did' }),
      truncated: Type.Boolean({ description: `True when stdout or stderr was longer than ${LIMITS.maxOutputBytes} bytes and was cut` }),
      durationMs: Type.Integer(),
    },
    { title: 'AfpExecResult' },
  ),
  stat: Type.Object(
    {
      path: ResolvedPath,
      type: EntryType,
      size: Type.Integer(),
      modifiedAt: ModifiedAt,
      mode: Type.String({ description: 'Permission bits in octal, e.g. 0644' }),
    },
    { title: 'AfpStat' },
  ),
  rm: Type.Object(
    { path: ResolvedPath, type: EntryType, deleted: Type.Literal(true) },
    { title: 'AfpDeleteResult' },
  ),
  mkdir: Type.Object(
    { path: ResolvedPath, created: Type.Boolean({ description: 'False when the directory already existed' }) },
    { title: 'AfpMkdirResult' },
  ),
} satisfies Record<Op, TSchema>;

export type OpResultOf<O extends Op> = Static<(typeof OpResults)[O]>;

/**
 * What the daemon answers when it does not do an operation. The server maps each to its
 * status: FORBIDDEN 403, NOT_FOUND 404, INVALID 400, CONFLICT 409, TOO_LARGE 413,
 * TIMEOUT 504, BUSY 429, INTERNAL 502.
 */
export const DEVICE_ERROR_CODES = ['FORBIDDEN', 'NOT_FOUND', 'INVALID', 'CONFLICT', 'TOO_LARGE', 'TIMEOUT', 'BUSY', 'INTERNAL'] as const;
export type DeviceErrorCode = (typeof DEVICE_ERROR_CODES)[number];

export const DeviceErrorSchema = Type.Object({
  code: Type.Union(DEVICE_ERROR_CODES.map((code) => Type.Literal(code))),
  message: Type.String({ maxLength: 2000 }),
  details: Type.Optional(Type.Unknown()),
});

// Frames.

export const HelloMessage = Type.Object({
  type: Type.Literal('hello'),
  protocol: Type.Integer(),
  // `x-pattern-message`: the pattern in words, as in every published schema (see src/http/schemas.ts's Pattern).
  name: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^[^\\u0000-\\u001f\\u007f]+$',
    'x-pattern-message': 'a device name holds no control characters',
  }),
  platform: Type.String({ minLength: 1, maxLength: 50 }),
  privilege: Type.Union(PRIVILEGES.map((p) => Type.Literal(p))),
  root: Type.String({ minLength: 1, maxLength: LIMITS.maxPathLength }),
  version: Type.String({ maxLength: 50 }),
  /**
   * The daemon's device key: random, made and kept by the daemon (a file beside its config), one
   * per server and device name. The device is bound to the key it was registered with; a hello
   * for that device with another key is refused (4403). Optional in the schema only so that a
   * daemon of protocol 1 hears "download the daemon again" rather than "bad frame".
   */
  key: Type.Optional(
    Type.String({ minLength: 32, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$', 'x-pattern-message': 'a device key is letters, digits, dashes and underscores' }),
  ),
});
export type Hello = Static<typeof HelloMessage>;

export const RegisteredMessage = Type.Object({
  type: Type.Literal('registered'),
  deviceId: Type.String(),
  heartbeatMs: Type.Integer({ minimum: 1 }),
});

export const HeartbeatMessage = Type.Object({ type: Type.Literal('heartbeat') });

export const RequestMessage = Type.Object({
  type: Type.Literal('request'),
  id: Type.String({ minLength: 1, maxLength: 100 }),
  op: Type.Union(OPS.map((op) => Type.Literal(op))),
  args: Type.Record(Type.String(), Type.Unknown()),
});
export type RequestFrame = Static<typeof RequestMessage>;

export const ResponseMessage = Type.Union([
  Type.Object({ type: Type.Literal('response'), id: Type.String(), ok: Type.Literal(true), result: Type.Unknown() }),
  Type.Object({ type: Type.Literal('response'), id: Type.String(), ok: Type.Literal(false), error: DeviceErrorSchema }),
]);
export type ResponseFrame = Static<typeof ResponseMessage>;

/** Frames the daemon sends. */
export const DaemonMessage = Type.Union([HelloMessage, HeartbeatMessage, ResponseMessage], { title: 'AfpDaemonMessage' });
export type DaemonMessage = Static<typeof DaemonMessage>;

/** Frames the server sends. */
export const ServerMessage = Type.Union([RegisteredMessage, HeartbeatMessage, RequestMessage], { title: 'AfpServerMessage' });
export type ServerMessage = Static<typeof ServerMessage>;

/** The daemon's `platform` string: Node's platform and architecture, e.g. linux-x64, darwin-arm64, win32-x64. */
export function platformName(platform: string, arch: string): string {
  return `${platform}-${arch}`;
}
