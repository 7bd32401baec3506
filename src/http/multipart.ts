import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

/** Busboy's limits for one route's form (@fastify/multipart passes them on). */
export interface FormLimits {
  fileSize: number;
  files: number;
  fields: number;
  parts: number;
  fieldSize: number;
  fieldNameSize: number;
  headerPairs: number;
}

/**
 * How a route reads its upload form: the parts it takes, and its own words for each way the form
 * can be wrong (each route names its file part, its fields and its size limit to the caller).
 */
export interface FormReading {
  limits: FormLimits;
  /** The names the file part may have; a file part of another name is refused. */
  fileParts: readonly string[];
  /** The text fields kept; others are passed over, as forms often carry extra inputs. Absent: every one. */
  fields?: readonly string[];
  says: {
    unexpectedFile(fieldname: string): string;
    secondFile: string;
    /** A text part under a file part's name (a client that forgot the `@`); absent: passed over as a field. */
    textAsFile?(fieldname: string): string;
    /** The file passed `limits.fileSize`. */
    tooLarge(): AppError;
    /** Busboy's other limits (parts, fields, files), with its own words. */
    tooManyParts(detail: string): string;
    unreadable(detail: string): string;
  };
}

export interface FormFile {
  filename: string;
  contentType: string;
  /** In memory, at most `limits.fileSize` bytes: busboy stops the part as soon as it passes. */
  data: Buffer;
}

/**
 * Reads a multipart form as it streams in: its one file part and its text fields, in whatever
 * order the client sent them. Every way it can be wrong is a 4xx AppError in the route's words;
 * a form without a file answers `file` undefined, for the route to say what it needed.
 */
export async function readForm(request: FastifyRequest, reading: FormReading): Promise<{ file: FormFile | undefined; fields: Record<string, string> }> {
  const { fileParts, says } = reading;
  let file: FormFile | undefined;
  const fields: Record<string, string> = {};
  try {
    for await (const part of request.parts({ limits: reading.limits })) {
      if (part.type === 'file') {
        if (!fileParts.includes(part.fieldname)) throw new AppError('VALIDATION_ERROR', says.unexpectedFile(part.fieldname));
        if (file) throw new AppError('VALIDATION_ERROR', says.secondFile);
        file = { filename: part.filename, contentType: part.mimetype, data: await part.toBuffer() };
        continue;
      }
      if (says.textAsFile && fileParts.includes(part.fieldname)) throw new AppError('VALIDATION_ERROR', says.textAsFile(part.fieldname));
      if (reading.fields && !reading.fields.includes(part.fieldname)) continue;
      if (part.valueTruncated) throw new AppError('VALIDATION_ERROR', `The field "${part.fieldname}" is too long`);
      fields[part.fieldname] = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const e = error as { code?: string; statusCode?: number; message?: string };
    if (e?.code === 'FST_REQ_FILE_TOO_LARGE') throw says.tooLarge();
    if (e?.statusCode === 413) throw new AppError('PAYLOAD_TOO_LARGE', says.tooManyParts(e.message ?? 'too many parts'));
    throw new AppError('VALIDATION_ERROR', says.unreadable(e?.message ?? 'malformed'), { cause: error });
  }
  return { file, fields };
}
