import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, principalOf } from '../../http/access.js';
import { inRequestPart } from '../../http/errors.js';
import {
  DeleteFileResponse,
  FileIdParams,
  ListFilesQuery,
  ListFilesResponse,
  ListMessagesQuery,
  ListMessagesResponse,
  MessageIdParams,
  MessageResponse,
  ReadFileResponse,
  SendBody,
  SendResponse,
  TrashResponse,
  UploadBody,
  UploadResponse,
} from './google.schemas.js';
import type { GoogleService } from './google.service.js';

/**
 * Mail (Gmail) and file storage (Google Drive) of the owner's connected Google account, in the
 * specification's shapes: top-level `success` and fields, not wrapped in `data`. These static
 * paths take precedence over the generic `GET /api/v1/services/{service}/*` pass-through.
 */
export function googleRoutes(deps: { google: GoogleService }): FastifyPluginAsyncTypebox {
  const { google } = deps;
  return async (app) => {
    const read = { access: access.scope('services:read') };
    const write = { access: access.scope('services:write') };
    const mailTags = ['mail'];
    const storageTags = ['storage'];
    const base = '/api/v1/services/google';

    app.get(
      `${base}/mail/messages`,
      {
        config: read,
        schema: {
          operationId: 'listMailMessages',
          summary: 'Messages of the connected Gmail account, newest first (403 PROVIDER_NOT_CONNECTED when not connected)',
          tags: mailTags,
          querystring: ListMessagesQuery,
          response: { 200: ListMessagesResponse },
        },
      },
      async (request) => {
        const { maxResults = 5, q, pageToken } = request.query;
        const page = await google.listMessages(principalOf(request).ownerId, { maxResults, q, pageToken });
        return { success: true, ...page };
      },
    );

    app.get(
      `${base}/mail/messages/:messageId`,
      {
        config: read,
        schema: {
          operationId: 'getMailMessage',
          summary: 'One message with its text body',
          tags: mailTags,
          params: MessageIdParams,
          response: { 200: MessageResponse },
        },
      },
      async (request) => ({ success: true, message: await google.getMessage(principalOf(request).ownerId, request.params.messageId) }),
    );

    app.delete(
      `${base}/mail/messages/:messageId`,
      {
        config: { ...write, actionClass: 'mail.trash' },
        schema: {
          operationId: 'trashMailMessage',
          summary: 'Move a message to Trash (not a permanent deletion)',
          tags: mailTags,
          params: MessageIdParams,
          response: { 200: TrashResponse },
        },
      },
      async (request) => ({ success: true, ...(await google.trashMessage(principalOf(request).ownerId, request.params.messageId)) }),
    );

    app.post(
      `${base}/mail/send`,
      {
        config: { ...write, actionClass: 'mail.send' },
        schema: {
          operationId: 'sendMail',
          summary: 'Send a plain-text message from the connected Gmail account',
          tags: mailTags,
          body: SendBody,
          response: { 200: SendResponse },
        },
      },
      async (request) => ({ success: true, ...(await inRequestPart('body', google.sendMessage(principalOf(request).ownerId, request.body))) }),
    );

    app.get(
      `${base}/storage/files`,
      {
        config: read,
        schema: {
          operationId: 'listStorageFiles',
          summary: 'Files of the connected Google Drive (401 PROVIDER_NOT_CONNECTED when not connected or the file scope is missing)',
          tags: storageTags,
          querystring: ListFilesQuery,
          response: { 200: ListFilesResponse },
        },
      },
      async (request) => {
        const { pageSize = 20, q, pageToken } = request.query;
        const page = await google.listFiles(principalOf(request).ownerId, { pageSize, q, pageToken });
        return { success: true, ...page };
      },
    );

    app.post(
      `${base}/storage/upload`,
      {
        config: { ...write, actionClass: 'files.upload' },
        schema: {
          operationId: 'uploadStorageFile',
          summary: 'Upload a file (up to 5 MB) to the connected Google Drive',
          tags: storageTags,
          body: UploadBody,
          response: { 200: UploadResponse },
        },
      },
      async (request) => {
        const { name, content, mimeType = 'text/plain', encoding = 'utf8', folderId } = request.body;
        const file = await inRequestPart('body', google.uploadFile(principalOf(request).ownerId, { name, content, mimeType, encoding, folderId }));
        return { success: true, file };
      },
    );

    app.get(
      `${base}/storage/files/:fileId`,
      {
        config: read,
        schema: {
          operationId: 'readStorageFile',
          summary: "A file of the connected Google Drive with its content (up to 5 MB; Google's documents exported as text)",
          tags: storageTags,
          params: FileIdParams,
          response: { 200: ReadFileResponse },
        },
      },
      async (request) => ({ success: true, ...(await google.readFile(principalOf(request).ownerId, request.params.fileId)) }),
    );

    app.delete(
      `${base}/storage/files/:fileId`,
      {
        config: { ...write, actionClass: 'files.delete' },
        schema: {
          operationId: 'deleteStorageFile',
          summary: 'Delete a file from the connected Google Drive',
          tags: storageTags,
          params: FileIdParams,
          response: { 200: DeleteFileResponse },
        },
      },
      async (request) => {
        await google.deleteFile(principalOf(request).ownerId, request.params.fileId);
        return { success: true, fileId: request.params.fileId, deleted: true as const };
      },
    );
  };
}
