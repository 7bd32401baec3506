import { Type, type Static } from '@sinclair/typebox';
import { UrlSafe, Pattern } from '../../http/schemas.js';

/** Gmail message ids are hex; Drive file ids are URL-safe base64-like. Neither has anything else. */
const ProviderId = Type.String({ minLength: 1, maxLength: 200, ...UrlSafe, description: "Google's id of the message or file, as a list answered it" });

export const MessageIdParams = Type.Object({ messageId: ProviderId });
export const FileIdParams = Type.Object({ fileId: ProviderId });

export const ListMessagesQuery = Type.Object({
  maxResults: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'Messages per page, 1 to 20 (default 5)' })),
  q: Type.Optional(Type.String({ maxLength: 2000, description: 'A Gmail search query, as in the Gmail search box: `from:ann is:unread`' })),
  pageToken: Type.Optional(Type.String({ maxLength: 2000, description: 'The `nextPageToken` of the previous page' })),
});

export const MailListItemSchema = Type.Object(
  {
    id: Type.String(),
    threadId: Type.String(),
    subject: Type.String(),
    from: Type.String(),
    to: Type.String(),
    date: Type.String({ description: 'When Gmail received the message, ISO 8601 UTC' }),
    snippet: Type.String(),
    isUnread: Type.Boolean(),
  },
  { title: 'MailMessageSummary' },
);
export type MailListItem = Static<typeof MailListItemSchema>;

export const ListMessagesResponse = Type.Object(
  {
    success: Type.Boolean(),
    messages: Type.Array(MailListItemSchema),
    nextPageToken: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'MailMessageList' },
);

export const MailMessageSchema = Type.Object({
  id: Type.String(),
  subject: Type.String(),
  from: Type.String(),
  to: Type.String(),
  date: Type.String({ description: 'When Gmail received the message, ISO 8601 UTC' }),
  snippet: Type.String(),
  body: Type.String({ description: 'The text of the message: the text/plain part, or the HTML part turned into text' }),
  isUnread: Type.Boolean(),
});
export type MailMessage = Static<typeof MailMessageSchema>;

export const MessageResponse = Type.Object(
  {
    success: Type.Boolean(),
    message: MailMessageSchema,
  },
  { title: 'MailMessageResponse' },
);

export const TrashResponse = Type.Object(
  {
    success: Type.Boolean(),
    messageId: Type.String(),
    trashed: Type.Boolean(),
  },
  { title: 'MailTrashResult' },
);

const Addresses = (description: string) => Type.String({ minLength: 1, maxLength: 10_000, description });
const OptionalAddresses = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()], { description }));

export const SendBody = Type.Object(
  {
    to: Addresses('Recipients, comma-separated: `ann@example.org, Bob <bob@example.org>`'),
    subject: Type.String({ maxLength: 2000, description: 'The subject line; may be empty' }),
    body: Type.String({ description: 'Plain text; sent as UTF-8' }),
    cc: OptionalAddresses('Copy recipients, comma-separated'),
    bcc: OptionalAddresses('Blind copy recipients, comma-separated; recipients do not see them'),
  },
  { additionalProperties: false },
);

export const SendResponse = Type.Object(
  {
    success: Type.Boolean(),
    messageId: Type.String(),
    threadId: Type.String(),
  },
  { title: 'MailSendResult' },
);

export const ListFilesQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 2000, description: "A Drive search query: `name contains 'report' and trashed = false`" })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Files per page, 1 to 100 (default 20)' })),
  pageToken: Type.Optional(Type.String({ maxLength: 2000, description: 'The `nextPageToken` of the previous page' })),
});

export const DriveFileSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    mimeType: Type.String(),
    size: Type.Union([Type.Number(), Type.Null()], { description: 'Bytes; null for Google Docs, Sheets and folders' }),
    modifiedTime: Type.Union([Type.String(), Type.Null()]),
    webViewLink: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'DriveFile' },
);
export type DriveFile = Static<typeof DriveFileSchema>;

export const ListFilesResponse = Type.Object(
  {
    success: Type.Boolean(),
    files: Type.Array(DriveFileSchema),
    nextPageToken: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'DriveFileList' },
);

export const UploadBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 1000, description: "The file's name in Drive, e.g. notes.txt" }),
    content: Type.String({ description: 'The file content, as text (utf8) or base64' }),
    mimeType: Type.Optional(
      Type.String({
        default: 'text/plain',
        maxLength: 255,
        ...Pattern(
          '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$',
          'a media type is a type and a subtype joined by a slash, without parameters, e.g. text/plain or application/pdf',
        ),
      }),
    ),
    encoding: Type.Optional(Type.Union([Type.Literal('utf8'), Type.Literal('base64')], { default: 'utf8' })),
    folderId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, ...UrlSafe, description: 'The Drive folder to put it in' })),
  },
  { additionalProperties: false },
);

export const UploadResponse = Type.Object(
  {
    success: Type.Boolean(),
    file: DriveFileSchema,
  },
  { title: 'DriveUploadResult' },
);

export const DeleteFileResponse = Type.Object(
  {
    success: Type.Boolean(),
    fileId: Type.String(),
    deleted: Type.Literal(true),
  },
  { title: 'DriveFileDeleted' },
);

export const ReadFileResponse = Type.Object(
  {
    success: Type.Boolean(),
    file: DriveFileSchema,
    content: Type.String({ description: 'The file: text as it is, anything else base64 (see encoding)' }),
    encoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')]),
    exportedAs: Type.Union([Type.String(), Type.Null()], {
      description: "For Google's own documents, the type they were exported as (text/plain, text/csv, image/svg+xml); null for ordinary files",
    }),
  },
  { title: 'DriveFileContent' },
);
