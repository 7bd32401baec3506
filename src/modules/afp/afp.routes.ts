import { createReadStream, type ReadStream } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { access, principalOf } from '../../http/access.js';
import { AppError, inRequestPart } from '../../http/errors.js';
import { trackFileBody } from '../../http/logging.js';
import type { CountedRateLimit } from '../../http/rate-limit.js';
import { actorOf } from '../audit/audit.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import type { DaemonDownloads } from './afp.downloads.js';
import { serveDaemonLink } from './afp.link.js';
import { CONNECT_PATH, LIMITS } from '../../shared/afp.protocol.js';
import type { DeviceLinkHost } from './afp.relay.js';
import {
  ConnectResponse,
  DeviceList,
  DeviceParams,
  DeviceResponse,
  DownloadParams,
  ExecBody,
  ExecResponse,
  LsResponse,
  MkdirBody,
  MkdirResponse,
  PathQuery,
  ReadQuery,
  ReadResponse,
  RmBody,
  RmResponse,
  StatResponse,
  WriteBody,
  WriteResponse,
} from './afp.schemas.js';
import type { AfpService } from './afp.service.js';

const tags = ['afp'];

/** A 10 MiB file in base64 is 13.4 MiB; the JSON around it needs a little more. */
const WRITE_BODY_LIMIT = 15 * 1024 * 1024;

export interface AfpRoutesDeps {
  afp: AfpService;
  downloads: DaemonDownloads;
  /** Where daemon connections are attached: the relay. */
  host: DeviceLinkHost;
  tokens: Pick<TokensService, 'authenticate'>;
  heartbeatMs: number;
}

/** Daemon downloads per client address per minute: a public route, and a build may run behind it. */
export const DOWNLOADS_PER_MINUTE = 30;
const downloadLimit: CountedRateLimit = {
  name: 'downloads',
  key: 'ip',
  max: () => DOWNLOADS_PER_MINUTE,
  windowMs: 60_000,
  what: 'daemon downloads from this address',
};

export function afpRoutes(deps: AfpRoutesDeps): FastifyPluginAsyncTypebox {
  const { afp, downloads } = deps;
  return async (app) => {
    const config = { access: access.scope('devices') };
    const owner = (request: Parameters<typeof principalOf>[0]) => principalOf(request).ownerId;

    app.route({
      method: 'GET',
      url: CONNECT_PATH,
      config,
      schema: {
        operationId: 'afpConnect',
        summary: "The AFP daemon's WebSocket: the daemon connects here with a token holding the devices scope",
        tags,
        response: { 101: ConnectResponse },
      },
      handler: async () => {
        throw new AppError('VALIDATION_ERROR', `${CONNECT_PATH} takes a WebSocket upgrade from the AFP daemon (GET /api/v1/afp/download/{platform})`);
      },
      wsHandler: (socket, request) =>
        serveDaemonLink(socket, request, {
          afp,
          host: deps.host,
          authenticate: (secret) => deps.tokens.authenticate(secret),
          heartbeatMs: deps.heartbeatMs,
          log: request.log,
        }),
    });

    app.get(
      '/api/v1/afp/devices',
      {
        config,
        schema: {
          operationId: 'listAfpDevices',
          summary: 'Registered remote PCs with their online/offline status, platform and privilege',
          tags,
          response: { 200: DeviceList },
        },
      },
      async (request) => ({ data: await afp.list(owner(request)) }),
    );

    app.get(
      '/api/v1/afp/devices/:deviceId',
      {
        config,
        schema: { operationId: 'getAfpDevice', summary: 'One remote PC', tags, params: DeviceParams, response: { 200: DeviceResponse } },
      },
      async (request) => ({ data: await afp.get(owner(request), request.params.deviceId) }),
    );

    app.delete(
      '/api/v1/afp/devices/:deviceId',
      {
        // The owner's alone (master token or login session): removing a device is how its name is
        // freed for a daemon with another device key, so a `devices` token that could remove it
        // could register its own daemon in the real one's place.
        config: { access: access.owner() },
        schema: {
          operationId: 'deleteAfpDevice',
          summary:
            "Forget a remote PC: its record is removed and its daemon's connection closed (the daemon stops). Owner only (master token or login session): it frees the name for a daemon with another device key",
          tags,
          params: DeviceParams,
          response: { 200: DeviceResponse },
        },
      },
      async (request) => ({ data: await afp.forget(owner(request), request.params.deviceId, actorOf(request)) }),
    );

    app.get(
      '/api/v1/afp/:deviceId/ls',
      {
        config,
        schema: {
          operationId: 'afpListDir',
          summary: 'List a folder on the device; 503 when it is offline',
          tags,
          params: DeviceParams,
          querystring: PathQuery,
          response: { 200: LsResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('querystring', afp.ls(owner(request), request.params.deviceId, request.query.path)) }),
    );

    app.get(
      '/api/v1/afp/:deviceId/read',
      {
        config,
        schema: {
          operationId: 'afpReadFile',
          summary: 'Read a file (at most 10 MiB): text as UTF-8, binary as base64; 503 when the device is offline',
          tags,
          params: DeviceParams,
          querystring: ReadQuery,
          response: { 200: ReadResponse },
        },
      },
      async (request) => ({
        data: await inRequestPart('querystring', afp.read(owner(request), request.params.deviceId, request.query.path, request.query.encoding)),
      }),
    );

    app.post(
      '/api/v1/afp/:deviceId/write',
      {
        config: { ...config, actionClass: 'devices.write' },
        bodyLimit: WRITE_BODY_LIMIT,
        schema: {
          operationId: 'afpWriteFile',
          summary: 'Write a file (created or replaced; its folder must exist); needs the write privilege; 503 when offline',
          tags,
          params: DeviceParams,
          body: WriteBody,
          response: { 200: WriteResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', afp.write(owner(request), request.params.deviceId, { ...request.body, encoding: request.body.encoding ?? 'utf8' }, actorOf(request))) }),
    );

    app.post(
      '/api/v1/afp/:deviceId/exec',
      {
        config: { ...config, actionClass: 'devices.exec' },
        schema: {
          operationId: 'afpExec',
          summary: 'Run a shell command; needs the exec privilege; 503 when offline, 504 when it runs past its timeout',
          tags,
          params: DeviceParams,
          body: ExecBody,
          response: { 200: ExecResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', afp.exec(
          owner(request),
          request.params.deviceId,
          { ...request.body, timeout: request.body.timeout ?? LIMITS.execDefaultTimeoutMs },
          actorOf(request),
        )) }),
    );

    app.get(
      '/api/v1/afp/:deviceId/stat',
      {
        config,
        schema: {
          operationId: 'afpStat',
          summary: 'Metadata of a file or folder; 503 when the device is offline',
          tags,
          params: DeviceParams,
          querystring: PathQuery,
          response: { 200: StatResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('querystring', afp.stat(owner(request), request.params.deviceId, request.query.path)) }),
    );

    app.delete(
      '/api/v1/afp/:deviceId/rm',
      {
        config: { ...config, actionClass: 'devices.delete' },
        schema: {
          operationId: 'afpDelete',
          summary: 'Remove a file, link or folder (recursive for one that is not empty); needs the write privilege; 503 when offline',
          tags,
          params: DeviceParams,
          body: RmBody,
          response: { 200: RmResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', afp.rm(owner(request), request.params.deviceId, { ...request.body, recursive: request.body.recursive ?? false }, actorOf(request))) }),
    );

    app.post(
      '/api/v1/afp/:deviceId/mkdir',
      {
        config: { ...config, actionClass: 'devices.write' },
        schema: {
          operationId: 'afpMkdir',
          summary: 'Create a folder (with its parents unless recursive is false); needs the write privilege; 503 when offline',
          tags,
          params: DeviceParams,
          body: MkdirBody,
          response: { 200: MkdirResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', afp.mkdir(owner(request), request.params.deviceId, { ...request.body, recursive: request.body.recursive ?? true }, actorOf(request))) }),
    );

    app.get(
      '/api/v1/afp/download/:platform',
      {
        config: { access: access.public(), rateLimit: downloadLimit },
        schema: {
          operationId: 'downloadAfpDaemon',
          summary: 'Download the AFP daemon for a platform (the README says what each file is and how to run it)',
          tags,
          params: DownloadParams,
          response: {
            200: {
              description: 'The daemon executable',
              content: { 'application/octet-stream': { schema: Type.Unsafe<ReadStream>({ type: 'string', format: 'binary' }) } },
            },
          },
        },
      },
      async (request, reply) => {
        const artifact = await downloads.get(request.params.platform);
        // Read up to the last byte announced, so the stream ends with its last chunk instead of
        // after one more read finds the end of the file; and let the log see it, so that a client
        // closing the connection once it has every byte is logged as a completed download.
        const body = createReadStream(artifact.file, artifact.size > 0 ? { start: 0, end: artifact.size - 1 } : {});
        return reply
          .type('application/octet-stream')
          .header('content-disposition', `attachment; filename="${artifact.filename}"`)
          .header('content-length', artifact.size)
          .send(trackFileBody(reply, body));
      },
    );
  };
}
