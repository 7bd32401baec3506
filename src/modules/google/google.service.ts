import { randomBytes } from 'node:crypto';
import type { OAuthProviderConfig } from '../../config.js';
import { AppError, InputError } from '../../http/errors.js';
import type { OutboundClient } from '../../http/outbound.js';
import type { OAuthService } from '../oauth/oauth.service.js';
import { googleOrigin } from '../oauth/oauth.providers.js';
import { createGoogleSession, type GoogleSession } from './google.client.js';
import { buildMessage, decodeEncodedWords, decodeSnippet, headerValue, messageBodyText, toRaw, type GmailPart } from './google.mime.js';
import type { DriveFile, MailListItem, MailMessage } from './google.schemas.js';

/** Scopes that allow each kind of operation (any one of them). */
const MAIL_READ = ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.modify', 'https://www.googleapis.com/auth/gmail.readonly'];
const MAIL_TRASH = ['https://mail.google.com/', 'https://www.googleapis.com/auth/gmail.modify'];
const MAIL_SEND = [
  'https://mail.google.com/',
  'https://www.googleapis.com/auth/gmail.modify',
  'https://www.googleapis.com/auth/gmail.compose',
  'https://www.googleapis.com/auth/gmail.send',
];
const FILES_READ = [
  'https://www.googleapis.com/auth/drive',
  'https://www.googleapis.com/auth/drive.file',
  'https://www.googleapis.com/auth/drive.readonly',
  'https://www.googleapis.com/auth/drive.metadata.readonly',
];
const FILES_WRITE = ['https://www.googleapis.com/auth/drive', 'https://www.googleapis.com/auth/drive.file'];

/** Drive's multipart upload takes files up to 5 MB; larger ones need a resumable upload. */
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;
/** The largest file read through Hearth; larger ones are opened with their web link. */
export const MAX_READ_BYTES = 5 * 1024 * 1024;

/** Google's own document types have no bytes of their own: they are read as an export. */
const EXPORTS: Record<string, string> = {
  'application/vnd.google-apps.document': 'text/plain',
  'application/vnd.google-apps.spreadsheet': 'text/csv',
  'application/vnd.google-apps.presentation': 'text/plain',
  'application/vnd.google-apps.drawing': 'image/svg+xml',
};

/** Types whose bytes are text, answered as text rather than base64. */
function isText(mimeType: string): boolean {
  return /^text\//.test(mimeType) || /^application\/(json|xml|javascript|x-yaml|yaml|csv|x-sh|sql)\b/.test(mimeType) || /\+(json|xml)\b/.test(mimeType) || mimeType === 'image/svg+xml';
}

const FILE_FIELDS = 'id,name,mimeType,size,modifiedTime,webViewLink';

interface GmailMessage {
  id: string;
  threadId?: string;
  labelIds?: string[];
  snippet?: string;
  internalDate?: string;
  payload?: GmailPart;
}

interface DriveFileResource {
  id: string;
  name?: string;
  mimeType?: string;
  size?: string;
  modifiedTime?: string;
  webViewLink?: string;
}

/** The message's time in ISO 8601 UTC: Gmail's receive time, else the Date header. */
function isoDate(message: GmailMessage): string {
  const internal = Number(message.internalDate);
  if (message.internalDate && Number.isFinite(internal)) return new Date(internal).toISOString();
  const header = headerValue(message.payload, 'Date');
  const parsed = header ? Date.parse(header) : NaN;
  return Number.isFinite(parsed) ? new Date(parsed).toISOString() : '';
}

function header(message: GmailMessage, name: string): string {
  const value = headerValue(message.payload, name);
  return value ? decodeEncodedWords(value) : '';
}

function toFile(resource: DriveFileResource): DriveFile {
  const size = resource.size !== undefined ? Number(resource.size) : NaN;
  return {
    id: resource.id,
    name: resource.name ?? '',
    mimeType: resource.mimeType ?? 'application/octet-stream',
    size: Number.isFinite(size) ? size : null,
    modifiedTime: resource.modifiedTime ?? null,
    webViewLink: resource.webViewLink ?? null,
  };
}

export interface GoogleServiceDeps {
  oauth: Pick<OAuthService, 'accessToken'>;
  outbound: Pick<OutboundClient, 'request'>;
  /** Google's settings: the endpoint override moves every address to a local fake. */
  google: OAuthProviderConfig;
}

/** Gmail (users.messages) and Drive (files) for the owner's connected Google account. */
export function createGoogleService(deps: GoogleServiceDeps) {
  const gmail = `${googleOrigin(deps.google, 'gmail')}/gmail/v1/users/me`;
  const drive = `${googleOrigin(deps.google, 'drive')}/drive/v3`;
  const upload = `${googleOrigin(deps.google, 'drive')}/upload/drive/v3`;

  /**
   * A session with the owner's token, after checking the connection holds one of `scopes`.
   * `status` is the answer's status when it does not (the specification's 401 for file lists).
   */
  async function session(ownerId: string, scopes: readonly string[], purpose: string, status?: number): Promise<GoogleSession> {
    try {
      const token = await deps.oauth.accessToken(ownerId, 'google');
      if (!token.scopes.some((scope) => scopes.includes(scope))) {
        throw new AppError(
          'PROVIDER_NOT_CONNECTED',
          `The Google connection was not granted the permission to ${purpose}: reconnect with GET /api/v1/oauth/authorize/google and allow it on the consent screen`,
          { details: { missingScope: scopes[0] } },
        );
      }
      return createGoogleSession(deps, ownerId, token);
    } catch (error) {
      if (status && error instanceof AppError && error.code === 'PROVIDER_NOT_CONNECTED') {
        throw new AppError(error.code, error.message, { status, details: error.details });
      }
      throw error;
    }
  }

  /** Keeps the specification's status for a refusal that surfaces mid-call (token refused, scope missing). */
  async function withStatus<T>(status: number | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (status && error instanceof AppError && error.code === 'PROVIDER_NOT_CONNECTED' && error.status !== status) {
        throw new AppError(error.code, error.message, { status, details: error.details });
      }
      throw error;
    }
  }

  return {
    async listMessages(
      ownerId: string,
      query: { maxResults: number; q?: string | undefined; pageToken?: string | undefined },
    ): Promise<{ messages: MailListItem[]; nextPageToken: string | null }> {
      const google = await session(ownerId, MAIL_READ, 'read mail');
      const url = new URL(`${gmail}/messages`);
      url.searchParams.set('maxResults', String(query.maxResults));
      if (query.q) url.searchParams.set('q', query.q);
      if (query.pageToken) url.searchParams.set('pageToken', query.pageToken);
      const page = await google.json<{ messages?: Array<{ id: string; threadId: string }>; nextPageToken?: string }>({
        url: url.toString(),
        what: 'The message list',
      });
      const ids = page.messages ?? [];
      const details = await Promise.all(
        ids.map(async ({ id }) => {
          const one = new URL(`${gmail}/messages/${encodeURIComponent(id)}`);
          one.searchParams.set('format', 'metadata');
          for (const name of ['Subject', 'From', 'To', 'Date']) one.searchParams.append('metadataHeaders', name);
          try {
            return await google.json<GmailMessage>({ url: one.toString(), what: `Message ${id}` });
          } catch (error) {
            // Deleted between the list and the read: leave it out.
            if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
            throw error;
          }
        }),
      );
      const messages: MailListItem[] = details
        .filter((m): m is GmailMessage => m !== null)
        .map((m) => ({
          id: m.id,
          threadId: m.threadId ?? '',
          subject: header(m, 'Subject'),
          from: header(m, 'From'),
          to: header(m, 'To'),
          date: isoDate(m),
          snippet: decodeSnippet(m.snippet),
          isUnread: (m.labelIds ?? []).includes('UNREAD'),
        }));
      return { messages, nextPageToken: page.nextPageToken ?? null };
    },

    async getMessage(ownerId: string, messageId: string): Promise<MailMessage> {
      const google = await session(ownerId, MAIL_READ, 'read mail');
      const m = await google.json<GmailMessage>({
        url: `${gmail}/messages/${encodeURIComponent(messageId)}?format=full`,
        what: `Message ${messageId}`,
      });
      return {
        id: m.id,
        subject: header(m, 'Subject'),
        from: header(m, 'From'),
        to: header(m, 'To'),
        date: isoDate(m),
        snippet: decodeSnippet(m.snippet),
        body: messageBodyText(m.payload),
        isUnread: (m.labelIds ?? []).includes('UNREAD'),
      };
    },

    /** Moves the message to Trash (Gmail deletes it for good after 30 days, not now). */
    async trashMessage(ownerId: string, messageId: string): Promise<{ messageId: string; trashed: boolean }> {
      const google = await session(ownerId, MAIL_TRASH, 'move mail to Trash');
      const m = await google.json<GmailMessage>({
        method: 'POST',
        url: `${gmail}/messages/${encodeURIComponent(messageId)}/trash`,
        what: `Message ${messageId}`,
      });
      return { messageId: m.id ?? messageId, trashed: (m.labelIds ?? ['TRASH']).includes('TRASH') };
    },

    async sendMessage(
      ownerId: string,
      mail: { to: string; subject: string; body: string; cc?: string | null | undefined; bcc?: string | null | undefined },
    ): Promise<{ messageId: string; threadId: string }> {
      // Checked before the connection, so a malformed message is a 400 whatever the account's state.
      const raw = toRaw(buildMessage(mail));
      const google = await session(ownerId, MAIL_SEND, 'send mail');
      const sent = await google.json<GmailMessage>({
        method: 'POST',
        url: `${gmail}/messages/send`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ raw }),
        what: 'The mailbox',
      });
      return { messageId: sent.id, threadId: sent.threadId ?? sent.id };
    },

    async listFiles(
      ownerId: string,
      query: { pageSize: number; q?: string | undefined; pageToken?: string | undefined },
    ): Promise<{ files: DriveFile[]; nextPageToken: string | null }> {
      // The specification answers 401 when Google is not connected or the file scope is missing.
      const google = await session(ownerId, FILES_READ, 'list files', 401);
      const url = new URL(`${drive}/files`);
      url.searchParams.set('pageSize', String(query.pageSize));
      url.searchParams.set('fields', `nextPageToken,files(${FILE_FIELDS})`);
      if (query.q) url.searchParams.set('q', query.q);
      if (query.pageToken) url.searchParams.set('pageToken', query.pageToken);
      const page = await withStatus(401, () =>
        google.json<{ files?: DriveFileResource[]; nextPageToken?: string }>({ url: url.toString(), what: 'The file list' }),
      );
      return { files: (page.files ?? []).map(toFile), nextPageToken: page.nextPageToken ?? null };
    },

    /** A Drive multipart upload: the metadata and the content in one multipart/related request. */
    async uploadFile(
      ownerId: string,
      file: { name: string; content: string; mimeType: string; encoding: 'utf8' | 'base64'; folderId?: string | undefined },
    ): Promise<DriveFile> {
      let bytes: Buffer;
      if (file.encoding === 'base64') {
        const compact = file.content.replace(/\s+/g, '');
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
          throw new InputError('content', 'is not valid base64', 'content is not valid base64 (encoding is base64)');
        }
        bytes = Buffer.from(compact, 'base64');
      } else {
        bytes = Buffer.from(file.content, 'utf8');
      }
      if (bytes.length > MAX_UPLOAD_BYTES) {
        throw new AppError('PAYLOAD_TOO_LARGE', `The file is ${bytes.length} bytes; uploads take at most ${MAX_UPLOAD_BYTES} bytes (5 MB)`);
      }
      const google = await session(ownerId, FILES_WRITE, 'create files in Drive');
      const metadata: Record<string, unknown> = { name: file.name, mimeType: file.mimeType };
      if (file.folderId) metadata.parents = [file.folderId];
      let boundary = `hearth_${randomBytes(12).toString('hex')}`;
      while (bytes.includes(boundary)) boundary = `hearth_${randomBytes(12).toString('hex')}`;
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify(metadata)}\r\n` +
            `--${boundary}\r\nContent-Type: ${file.mimeType}\r\n\r\n`,
          'utf8',
        ),
        bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'),
      ]);
      const created = await google.json<DriveFileResource>({
        method: 'POST',
        url: `${upload}/files?uploadType=multipart&fields=${encodeURIComponent(FILE_FIELDS)}`,
        headers: { 'content-type': `multipart/related; boundary=${boundary}` },
        body,
        what: file.folderId ? `Folder ${file.folderId}` : 'The Drive',
      });
      return toFile(created);
    },

    /**
     * A file's metadata and content: its bytes (files.get alt=media), or for Google's own
     * documents an export as text, CSV or SVG. Text comes back as text, anything else as base64;
     * a file over 5 MB is refused with its web link rather than held in memory.
     */
    async readFile(ownerId: string, fileId: string): Promise<{ file: DriveFile; content: string; encoding: 'utf8' | 'base64'; exportedAs: string | null }> {
      const google = await session(ownerId, FILES_READ, 'read files');
      const id = encodeURIComponent(fileId);
      const file = toFile(await google.json<DriveFileResource>({ url: `${drive}/files/${id}?fields=${encodeURIComponent(FILE_FIELDS)}`, what: `File ${fileId}` }));
      if (file.size !== null && file.size > MAX_READ_BYTES) {
        throw new AppError('PAYLOAD_TOO_LARGE', `File ${fileId} is ${file.size} bytes; Hearth reads files of at most ${MAX_READ_BYTES} bytes (5 MB). Open it at ${file.webViewLink ?? 'Google Drive'}`);
      }
      const exportedAs = EXPORTS[file.mimeType] ?? null;
      const url = exportedAs ? `${drive}/files/${id}/export?mimeType=${encodeURIComponent(exportedAs)}` : `${drive}/files/${id}?alt=media`;
      const response = await google.request({ url, what: `File ${fileId}`, maxResponseBytes: MAX_READ_BYTES });
      const type = exportedAs ?? file.mimeType;
      return isText(type)
        ? { file, content: response.body.toString('utf8'), encoding: 'utf8', exportedAs }
        : { file, content: response.body.toString('base64'), encoding: 'base64', exportedAs };
    },

    /** Deletes the file for good (Drive files.delete skips the trash). */
    async deleteFile(ownerId: string, fileId: string): Promise<void> {
      const google = await session(ownerId, FILES_WRITE, 'delete files in Drive');
      await google.request({ method: 'DELETE', url: `${drive}/files/${encodeURIComponent(fileId)}`, what: `File ${fileId}` });
    },
  };
}

export type GoogleService = ReturnType<typeof createGoogleService>;
