import { Type, type Static } from '@sinclair/typebox';
import { Data, IsoDateTime, List, RecordId } from '../../http/schemas.js';
import { DaemonMessage, LIMITS, OpResults, PRIVILEGES, ServerMessage } from '../../shared/afp.protocol.js';
import { DOWNLOAD_PLATFORMS } from '../../shared/afp.platforms.js';

export const DeviceSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String({ description: 'The name the daemon registered with (--name; the host name by default)' }),
    platform: Type.String({ description: 'Operating system and architecture: linux-x64, darwin-arm64, win32-x64…' }),
    privilege: Type.Union(PRIVILEGES.map((p) => Type.Literal(p)), {
      description: 'read: ls, read, stat; write: also write, mkdir, rm; exec: also exec. Set on the PC, enforced by the daemon',
    }),
    status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
    lastSeenAt: Type.String({ format: 'date-time', description: 'When the server last heard from the daemon' }),
    root: Type.String({ description: 'The only folder the daemon may touch (absolute paths must lie inside it)' }),
    version: Type.String({ description: "The daemon's version" }),
    createdAt: IsoDateTime,
  },
  { title: 'AfpDevice' },
);
/** A device as the API shows it. */
export type Device = Static<typeof DeviceSchema>;

export const DeviceList = List(DeviceSchema);
export const DeviceResponse = Data(DeviceSchema);

export const DeviceParams = Type.Object({ deviceId: RecordId });

const DevicePath = Type.String({
  minLength: 1,
  maxLength: LIMITS.maxPathLength,
  description: 'An absolute path on the device, inside its root: /home/me/notes.txt, or C:\\Users\\me\\notes.txt on Windows',
});

export const PathQuery = Type.Object({ path: DevicePath });

export const ReadQuery = Type.Object({
  path: DevicePath,
  encoding: Type.Optional(
    Type.Union([Type.Literal('utf8'), Type.Literal('base64')], {
      description: 'base64 always answers base64; by default text is UTF-8 and binary files base64',
    }),
  ),
});

export const WriteBody = Type.Object(
  {
    path: DevicePath,
    content: Type.String({ description: `The file's new content, at most ${LIMITS.maxFileBytes} bytes (10 MiB) once decoded` }),
    encoding: Type.Optional(Type.Union([Type.Literal('utf8'), Type.Literal('base64')], { default: 'utf8' })),
  },
  { additionalProperties: false },
);

export const ExecBody = Type.Object(
  {
    cmd: Type.String({ minLength: 1, maxLength: LIMITS.maxCommandLength, description: 'A shell command (/bin/sh -c on Linux and macOS, cmd.exe /c on Windows)' }),
    cwd: Type.Optional({ ...DevicePath, description: 'The working folder, inside the root; the root by default' }),
    timeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LIMITS.execMaxTimeoutMs,
        default: LIMITS.execDefaultTimeoutMs,
        description: 'Milliseconds, at most 60000. At the timeout the command and everything it started are ended and the answer is 504 DEVICE_TIMEOUT',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RmBody = Type.Object(
  {
    path: DevicePath,
    recursive: Type.Optional(Type.Boolean({ default: false, description: 'Required to remove a folder that is not empty' })),
  },
  { additionalProperties: false },
);

export const MkdirBody = Type.Object(
  {
    path: DevicePath,
    recursive: Type.Optional(Type.Boolean({ default: true, description: 'Create missing parent folders too; an existing folder is then not an error' })),
  },
  { additionalProperties: false },
);

export const LsResponse = Data(OpResults.ls);
export const ReadResponse = Data(OpResults.read);
export const WriteResponse = Data(OpResults.write);
export const ExecResponse = Data(OpResults.exec);
export const StatResponse = Data(OpResults.stat);
export const RmResponse = Data(OpResults.rm);
export const MkdirResponse = Data(OpResults.mkdir);

export const DownloadParams = Type.Object({
  platform: Type.Union(DOWNLOAD_PLATFORMS.map((p) => Type.Literal(p)), {
    description: 'linux (x86-64), mac (Intel), mac-arm (Apple silicon), win (x86-64)',
  }),
});

/** OpenAPI has no words for a WebSocket: the upgrade is documented as a 101 carrying the frames of afp.protocol.ts. */
export const ConnectResponse = {
  description:
    "Switching Protocols: the daemon's WebSocket. The daemon sends `hello`, the server answers `registered`; then the server sends `request` frames and the daemon `response` frames, with `heartbeat` both ways every heartbeatMs.",
  content: {
    'application/json': {
      schema: Type.Object({ daemonSends: DaemonMessage, serverSends: ServerMessage }, { title: 'AfpLinkFrames' }),
    },
  },
};
