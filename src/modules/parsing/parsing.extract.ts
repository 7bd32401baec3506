/**
 * Text extraction for knowledge-base uploads: plain text and Markdown as they are, HTML to
 * readable text, PDF through PDF.js (the `unpdf` serverless build) and DOCX through mammoth.
 * Everything is JavaScript: no system tool is ever run on an uploaded file.
 * `extractUploadText` runs only inside a parsing worker (src/modules/parsing), never on the
 * request thread: the caps here refuse what is plainly too large early and with a clear message,
 * and the worker's heap, memory and time limits stop whatever slips past them.
 */
import path from 'node:path';
import { htmlToText } from '../../lib/html-to-text.js';
import { AppError } from '../../http/errors.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { inflateZipEntry, readZipDirectory, type ZipRefusals } from '../../lib/zip.js';

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

/** The caps one extraction works within (the EXTRACT_* settings). */
export interface ExtractCaps {
  maxPages: number;
  maxInflatedBytes: number;
  maxTextChars: number;
}

const MiB = 1024 * 1024;
const sizeText = (bytes: number) => (bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`);

function tooMuchText(filename: string, caps: ExtractCaps): AppError {
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `${filename} holds more than ${caps.maxTextChars} characters of text, the limit (EXTRACT_MAX_TEXT_CHARS); split it into smaller files`,
  );
}

/** Extracts the readable text of a file of a known kind. */
export async function extractUploadText(kind: UploadKind, data: Buffer, filename: string, caps: ExtractCaps): Promise<string> {
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
      text = await pdfToText(data, filename, caps);
      break;
    case 'docx':
      text = await docxToText(data, filename, caps);
      break;
  }
  if (text.length > caps.maxTextChars) throw tooMuchText(filename, caps);
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

async function pdfToText(data: Buffer, filename: string, caps: ExtractCaps): Promise<string> {
  if (!pdfSignature(data)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${filename} is not a PDF: it does not start with the %PDF header`);
  }
  // Loaded on first use: the PDF.js bundle is large and most servers never see a PDF.
  const { getDocumentProxy } = await import('unpdf');
  let document: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    // A copy: PDF.js may take over (detach) the buffer it is given. verbosity 0 keeps its
    // warnings about damaged files out of the server's output.
    document = await getDocumentProxy(new Uint8Array(data), { verbosity: 0 });
    // A page tree may name one page object thousands of times: a 240 KB file can claim
    // 40,000 pages. The count is known once the document opens, before any page is read.
    if (document.numPages > caps.maxPages) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `${filename} has ${document.numPages} pages; at most ${caps.maxPages} are read (EXTRACT_MAX_PAGES). Split it into smaller files`,
      );
    }
    // Page by page (unpdf's extractText reads them all at once), stopping at the text cap.
    const pages: string[] = [];
    let chars = 0;
    for (let number = 1; number <= document.numPages; number++) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const text = content.items
        .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''))
        .join('')
        .trim();
      page.cleanup();
      if (!text) continue;
      chars += (pages.length > 0 ? 2 : 0) + text.length;
      if (chars > caps.maxTextChars) throw tooMuchText(filename, caps);
      pages.push(text);
    }
    return pages.join('\n\n');
  } catch (error) {
    if (error instanceof AppError) throw error;
    const name = (error as { name?: string })?.name;
    if (name === 'PasswordException') {
      throw new AppError('VALIDATION_ERROR', `${filename} is password-protected: upload a copy without a password`);
    }
    const reason = (error as { message?: string })?.message ?? 'unknown error';
    throw new AppError('VALIDATION_ERROR', `${filename} could not be read as a PDF (${reason}); the file may be damaged`, {
      cause: error,
    });
  } finally {
    if (document) await ignoreFailure(document.destroy(), 'the text is read (or the error thrown); freeing the parser\'s memory cannot change either');
  }
}

// ---------------------------------------------------------------------------------------------
// DOCX


/**
 * Proves that a zip expands to at most `budget` bytes before mammoth opens it: mammoth's JSZip
 * inflates a part whole before it compares the result with the size the directory declares, so
 * a directory that lies would let a 400 KB upload take 400 MB. This reads the zip as JSZip does
 * (the last end-of-directory record, every central entry found from the directory's offset,
 * each entry's data after its local header), refuses what JSZip would read differently (ZIP64,
 * prepended bytes, encryption, methods other than stored and deflate), and inflates each
 * deflated entry itself, with zlib's output capped at the size the entry declares, so nothing
 * larger is ever allocated. Throws 400 VALIDATION_ERROR when the zip is damaged, or when an
 * entry's data does not expand to
 * exactly its declared size; 413 PAYLOAD_TOO_LARGE when the declared sizes add up to more than
 * `budget` (EXTRACT_MAX_INFLATED_BYTES: far above any real Word document, whose text is a few
 * MiB of XML and whose pictures are stored already compressed; far below a zip bomb).
 */
export function checkZipExpansion(data: Buffer, filename: string, budget: number): void {
  const refusals = zipRefusals(filename, budget);
  for (const entry of readZipDirectory(data, budget, refusals)) inflateZipEntry(data, entry, refusals);
}

function zipRefusals(filename: string, budget: number): ZipRefusals {
  return {
    damaged: (why) => new AppError('VALIDATION_ERROR', `${filename} could not be read as a DOCX file: its zip structure is damaged (${why})`),
    tooLarge: () =>
      new AppError(
        'PAYLOAD_TOO_LARGE',
        `${filename}: the .docx expands beyond ${sizeText(budget)}, the limit (EXTRACT_MAX_INFLATED_BYTES); it is refused`,
      ),
    lying: (name, beyond) =>
      new AppError(
        'VALIDATION_ERROR',
        `${filename}: the .docx ${beyond ? 'expands beyond' : 'does not expand to'} what its zip directory declares (${name}); it is refused`,
      ),
  };
}

async function docxToText(data: Buffer, filename: string, caps: ExtractCaps): Promise<string> {
  if (data.length < 4 || data.readUInt32LE(0) !== 0x04034b50) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${filename} is not a DOCX file: a .docx is a zip archive, which starts with "PK"`);
  }
  checkZipExpansion(data, filename, caps.maxInflatedBytes);
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
