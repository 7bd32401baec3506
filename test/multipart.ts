import { randomBytes } from 'node:crypto';

/** One part of a multipart/form-data body: a field, or a file when it has a file name. */
export interface FormPart {
  name: string;
  filename?: string;
  /** The part's Content-Type header, when it has one. */
  contentType?: string;
  data: string | Buffer;
}

/** A multipart/form-data body with a boundary of its own, and the header that names it. */
export function multipart(parts: readonly FormPart[]): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----hearth-test-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.contentType ? `Content-Type: ${part.contentType}\r\n` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`, 'utf8'));
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
