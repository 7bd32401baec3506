/**
 * Text extraction for knowledge-base uploads: plain text and Markdown as they are, HTML to
 * readable text, PDF through PDF.js (the `unpdf` serverless build) and DOCX through mammoth.
 * Everything is JavaScript: no system tool is ever run on an uploaded file.
 */
import path from 'node:path';
import { htmlToText } from '../../lib/html-to-text.js';
import { AppError } from '../../http/errors.js';

export type UploadKind = 'text' | 'markdown' | 'html' | 'pdf' | 'docx';

interface KindInfo {
  /** What the document records as its `mimeType`. */
  mimeType: string;
  extensions: readonly string[];
  contentTypes: readonly string[];
}

export const UPLOAD_KINDS: Record<UploadKind, KindInfo> = {
  text: { mimeType: 'text/plain', extensions: ['.txt', '.text'], contentTypes: ['text/plain'] },
  markdown: { mimeType: 'text/markdown', extensions: ['.md', '.markdown'], contentTypes: ['text/markdown', 'text/x-markdown'] },
  html: { mimeType: 'text/html', extensions: ['.html', '.htm'], contentTypes: ['text/html', 'application/xhtml+xml'] },
  pdf: { mimeType: 'application/pdf', extensions: ['.pdf'], contentTypes: ['application/pdf', 'application/x-pdf'] },
  docx: {
    mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extensions: ['.docx'],
    contentTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  },
};

export const SUPPORTED_UPLOADS = '.txt, .md, .html/.htm, .pdf and .docx';

/**
 * The kind of an uploaded file, from its name and its declared Content-Type. A known extension
 * wins, because clients label files loosely (a .md sent as text/plain, anything as
 * application/octet-stream); the Content-Type decides for names without a known extension.
 * The content is checked against the kind afterwards (magic bytes, text that is not binary).
 */
export function detectUploadKind(filename: string, contentType: string | undefined): UploadKind | null {
  const extension = path.extname(filename).toLowerCase();
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const kinds = Object.entries(UPLOAD_KINDS) as Array<[UploadKind, KindInfo]>;
  const byExtension = extension ? kinds.find(([, info]) => info.extensions.includes(extension))?.[0] : undefined;
  if (byExtension) return byExtension;
  return kinds.find(([, info]) => info.contentTypes.includes(type))?.[0] ?? null;
}

/** Extracts the readable text of a file of a known kind. */
export async function extractUploadText(kind: UploadKind, data: Buffer, filename: string): Promise<string> {
  let text: string;
  switch (kind) {
    case 'text':
    case 'markdown':
      text = decodeText(data, filename);
      break;
    case 'html':
      text = htmlToText(decodeText(data, filename));
      break;
    case 'pdf':
      text = await pdfToText(data, filename);
      break;
    case 'docx':
      text = await docxToText(data, filename);
      break;
  }
  // Stray NULs (odd PDF fonts, UTF-16 files) carry no meaning, and PostgreSQL text cannot hold them.
  text = text.replace(/\u0000/g, '');
  if (text.trim() === '') {
    throw new AppError(
      'VALIDATION_ERROR',
      kind === 'pdf'
        ? `${filename} contains no extractable text (a scanned PDF needs OCR first)`
        : `${filename} contains no text`,
    );
  }
  return text;
}

// Node's TextDecoder treats windows-1252 as ISO-8859-1, whose 0x80–0x9F are control codes;
// these are the characters Windows text files mean by those bytes.
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';

/**
 * Text files in the encodings people actually have: UTF-8 (with or without a BOM), UTF-16
 * with a BOM, and Windows-1252 for the old files that are not valid UTF-8. Anything holding
 * NUL bytes is a binary file with a text name, which this route does not take.
 */
export function decodeText(data: Buffer, filename = 'The file'): string {
  if (data[0] === 0xff && data[1] === 0xfe) return new TextDecoder('utf-16le').decode(data.subarray(2));
  if (data[0] === 0xfe && data[1] === 0xff) return new TextDecoder('utf-16be').decode(data.subarray(2));
  if (data.includes(0)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${filename} is not a text file (it holds binary data). Supported: ${SUPPORTED_UPLOADS}`);
  }
  try {
    // ignoreBOM: false (the default) drops a UTF-8 BOM.
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return new TextDecoder('latin1').decode(data).replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
  }
}

// ---------------------------------------------------------------------------------------------
// PDF

function pdfSignature(data: Buffer): boolean {
  // Readers accept the header anywhere in the first KiB (some writers put junk before it).
  return data.subarray(0, 1024).includes('%PDF-');
}

async function pdfToText(data: Buffer, filename: string): Promise<string> {
  if (!pdfSignature(data)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${filename} is not a PDF: it does not start with the %PDF header`);
  }
  // Loaded on first use: the PDF.js bundle is large and most servers never see a PDF.
  const { getDocumentProxy, extractText } = await import('unpdf');
  let document: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    // A copy: PDF.js may take over (detach) the buffer it is given. verbosity 0 keeps its
    // warnings about damaged files out of the server's output.
    document = await getDocumentProxy(new Uint8Array(data), { verbosity: 0 });
    const { text } = await extractText(document, { mergePages: false });
    return text.map((page) => page.trim()).filter(Boolean).join('\n\n');
  } catch (error) {
    const name = (error as { name?: string })?.name;
    if (name === 'PasswordException') {
      throw new AppError('VALIDATION_ERROR', `${filename} is password-protected: upload a copy without a password`);
    }
    const reason = (error as { message?: string })?.message ?? 'unknown error';
    throw new AppError('VALIDATION_ERROR', `${filename} could not be read as a PDF (${reason}); the file may be damaged`, {
      cause: error,
    });
  } finally {
    await document?.destroy().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// DOCX

/** Far above any real Word document, far below what a zip bomb expands to. */
const DOCX_MAX_UNCOMPRESSED = 200 * 1024 * 1024;

/**
 * The sum of the uncompressed sizes a zip's central directory declares, or null when the
 * directory cannot be read. mammoth inflates every part it reads in memory, so a small zip
 * that declares gigabytes is refused before it is opened.
 */
export function zipDeclaredSize(data: Buffer): number | null {
  const EOCD = 0x06054b50;
  const minimum = 22;
  for (let at = data.length - minimum; at >= Math.max(0, data.length - minimum - 0xffff); at--) {
    if (data.readUInt32LE(at) !== EOCD) continue;
    const entries = data.readUInt16LE(at + 10);
    let offset = data.readUInt32LE(at + 16);
    let total = 0;
    for (let i = 0; i < entries; i++) {
      if (offset + 46 > data.length || data.readUInt32LE(offset) !== 0x02014b50) return null;
      const size = data.readUInt32LE(offset + 24);
      // 0xFFFFFFFF means the real size is in a ZIP64 field: a Word document never needs that.
      if (size === 0xffffffff) return Number.POSITIVE_INFINITY;
      total += size;
      offset += 46 + data.readUInt16LE(offset + 28) + data.readUInt16LE(offset + 30) + data.readUInt16LE(offset + 32);
    }
    return total;
  }
  return null;
}

async function docxToText(data: Buffer, filename: string): Promise<string> {
  if (data.length < 4 || data.readUInt32LE(0) !== 0x04034b50) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${filename} is not a DOCX file: a .docx is a zip archive, which starts with "PK"`);
  }
  const declared = zipDeclaredSize(data);
  if (declared === null) {
    throw new AppError('VALIDATION_ERROR', `${filename} could not be read as a DOCX file: its zip directory is damaged`);
  }
  if (declared > DOCX_MAX_UNCOMPRESSED) {
    throw new AppError('PAYLOAD_TOO_LARGE', `${filename} expands to more than ${DOCX_MAX_UNCOMPRESSED / 1024 / 1024} MiB; it is refused`);
  }
  const { default: mammoth } = await import('mammoth');
  try {
    const result = await mammoth.extractRawText({ buffer: data });
    return result.value.replace(/\r\n?/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
  } catch (error) {
    const reason = (error as { message?: string })?.message ?? 'unknown error';
    throw new AppError('VALIDATION_ERROR', `${filename} could not be read as a DOCX file (${reason}); the file may be damaged`, {
      cause: error,
    });
  }
}
