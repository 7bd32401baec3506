/**
 * The bytes of an import, read as text and, for a zip, as the files it holds: every step bounded
 * in memory and time whatever the upload claims, because the upload is outside input.
 */
import { inflateRawSync } from 'node:zlib';
import { AppError } from '../../http/errors.js';
import { clip } from './memory-import.echo.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** The bounds of one import's zip (decisions in docs/decisions/memory.md, "Bringing memory from other tools"). */
export const ZIP_LIMITS = {
  /** Files and folders listed in the zip's directory. */
  maxEntries: 5000,
  /** What all the Markdown files inflate to together. */
  maxInflatedBytes: 50 * MiB,
  /** What one file may inflate to. */
  maxFileBytes: 4 * MiB,
  /** How many times its compressed size a file may inflate to (beyond a small floor). */
  maxRatio: 100,
  /** A file that inflates to this much is never refused for its ratio (short notes compress well). */
  ratioFloorBytes: 64 * KiB,
} as const;

/** Where invalid UTF-8 starts: the byte offset, or -1 when every byte sequence is valid. */
export function invalidUtf8At(data: Uint8Array): number {
  let i = 0;
  while (i < data.length) {
    const b = data[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    // A sequence cut short by the end of the data.
    if (i + need >= data.length) return i;
    let code = b & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
    for (let k = 1; k <= need; k++) {
      const c = data[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (code < min || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return i;
    i += need + 1;
  }
  return -1;
}

/** The 1-based line and column of a character offset in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * The text of an uploaded file: UTF-8 only (a BOM is dropped), refused with the line where
 * invalid bytes start. Guessing another encoding would import mangled words without a word of
 * warning; the tools these formats come from all write UTF-8. NUL characters are refused too:
 * no text format has them, and PostgreSQL cannot store them.
 */
export function decodeUtf8(data: Uint8Array, file: string): string {
  const bad = invalidUtf8At(data);
  if (bad >= 0) {
    const before = Buffer.from(data.subarray(0, bad)).toString('utf8');
    const { line, column } = lineAndColumn(before, before.length);
    throw new AppError(
      'VALIDATION_ERROR',
      `${file} is not valid UTF-8 text: line ${line}, column ${column} (byte ${bad}) holds bytes that are not UTF-8. Save the file as UTF-8 and import it again; nothing was imported`,
      { details: { file, line, column, byte: bad } },
    );
  }
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8').replace(/^\uFEFF/, '');
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    const { line, column } = lineAndColumn(text, nul);
    throw new AppError('VALIDATION_ERROR', `${file} holds a NUL character at line ${line}, column ${column}: it is not a text file. Nothing was imported`, {
      details: { file, line, column },
    });
  }
  return text;
}

export const isZip = (data: Uint8Array): boolean => data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && data[2] === 0x03 && data[3] === 0x04;

/** A file of a zip, as the import reads it. */
export interface ZipFile {
  /** Its path in the zip, with forward slashes. */
  path: string;
  data: Buffer;
}

/** A file of the zip that is not read, and why. */
export interface ZipSkip {
  path: string;
  reason: string;
}

const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const END = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/**
 * Whether a path stays inside the folder it is unpacked in: nothing is ever written to disk, but
 * a name climbing out (`../`, an absolute path, a drive letter) is no note of the folder.
 */
function staysInside(path: string): boolean {
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return false;
  return !path.split('/').some((part) => part === '..');
}

/** The central directory's record at `at`: what the import reads of it, and where the next starts. */
function centralEntry(data: Buffer, at: number, damaged: (why: string) => AppError) {
  if (at + 46 > data.length || data.readUInt32LE(at) !== CENTRAL) throw damaged('its central directory is truncated');
  const nameLength = data.readUInt16LE(at + 28);
  if (at + 46 + nameLength > data.length) throw damaged('its central directory is truncated');
  return {
    flags: data.readUInt16LE(at + 8),
    method: data.readUInt16LE(at + 10),
    compressed: data.readUInt32LE(at + 20),
    declared: data.readUInt32LE(at + 24),
    localOffset: data.readUInt32LE(at + 42),
    // Zip names are UTF-8 (flag 11) or, from old tools, code page 437; both read as UTF-8 here.
    // Cut on a whole character: the name is quoted in messages and sources.
    path: clip(data.toString('utf8', at + 46, at + 46 + nameLength).replace(/\\/g, '/'), 1000, ''),
    next: at + 46 + nameLength + data.readUInt16LE(at + 30) + data.readUInt16LE(at + 32),
  };
}

/**
 * One file's data inflated, its output capped at the least of `left` (what is left of the zip's
 * total), the per-file bound and its ratio bound: zlib stops at the cap, so nothing larger is
 * ever allocated, whatever the directory declares.
 */
function inflateEntry(raw: Buffer, method: number, left: number, names: { file: string; path: string }, damaged: (why: string) => AppError): Buffer {
  const { file, path } = names;
  const ratioCap = Math.max(ZIP_LIMITS.ratioFloorBytes, raw.length * ZIP_LIMITS.maxRatio);
  const cap = Math.min(left, ZIP_LIMITS.maxFileBytes, ratioCap);
  const tooLarge = () => {
    const which =
      cap === left
        ? `the files together inflate beyond ${ZIP_LIMITS.maxInflatedBytes / MiB} MiB`
        : cap === ratioCap
          ? `${path} inflates to more than ${ZIP_LIMITS.maxRatio} times its compressed size (a zip bomb, or not a note)`
          : `${path} inflates beyond ${ZIP_LIMITS.maxFileBytes / MiB} MiB, the largest note an import reads`;
    return new AppError('PAYLOAD_TOO_LARGE', `${file}: ${which}. It is refused; nothing was imported`, { details: { file, path } });
  };
  if (method === 0) {
    if (raw.length > cap) throw tooLarge();
    return Buffer.from(raw);
  }
  try {
    return inflateRawSync(raw, { maxOutputLength: cap });
  } catch (error) {
    if ((error as { code?: string })?.code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw damaged(`${path} does not inflate`);
  }
}

/**
 * The files of a zip that `wanted` picks, inflated within ZIP_LIMITS. The directory is read
 * first (damage, encryption, ZIP64 and methods other than stored and deflate are refused);
 * each wanted file is then inflated with zlib's output capped at the least of what is left of
 * the total, the per-file bound and its ratio bound, so a file that claims little and inflates
 * to much is stopped while inflating, whatever its directory declares. Files not wanted are
 * never inflated.
 */
export function readZip(
  data: Buffer,
  file: string,
  wanted: (path: string) => string | null,
): { files: ZipFile[]; skipped: ZipSkip[] } {
  const damaged = (why: string) =>
    new AppError('VALIDATION_ERROR', `${file} could not be read as a zip archive: ${why}. Make the zip again (most tools: "Compress" on the folder); nothing was imported`, {
      details: { file },
    });
  const end = data.lastIndexOf(END);
  if (end < 0 || end + 22 > data.length) throw damaged('it has no end of central directory');
  const count = data.readUInt16LE(end + 10);
  const directoryOffset = data.readUInt32LE(end + 16);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw damaged('ZIP64 archives are not supported');
  if (count > ZIP_LIMITS.maxEntries) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `${file} lists ${count} files; an import reads at most ${ZIP_LIMITS.maxEntries}. Import the folder in parts; nothing was imported`,
      { details: { file, files: count, maxFiles: ZIP_LIMITS.maxEntries } },
    );
  }
  const files: ZipFile[] = [];
  const skipped: ZipSkip[] = [];
  let inflatedTotal = 0;
  let at = directoryOffset;
  for (let n = 0; n < count; n++) {
    const { flags, method, compressed, declared, localOffset, path, next } = centralEntry(data, at, damaged);
    at = next;
    if (path.endsWith('/')) continue;
    if (!staysInside(path)) {
      skipped.push({ path, reason: 'its path leaves the folder (../ or absolute): ignored' });
      continue;
    }
    const notWanted = wanted(path);
    if (notWanted !== null) {
      skipped.push({ path, reason: notWanted });
      continue;
    }
    if (flags & 1) throw damaged(`${path} is encrypted`);
    if (method !== 0 && method !== 8) throw damaged(`${path} uses compression method ${method} (only stored and deflate are read)`);
    if (compressed === 0xffffffff || declared === 0xffffffff || localOffset === 0xffffffff) throw damaged('ZIP64 archives are not supported');
    if (localOffset + 30 > data.length || data.readUInt32LE(localOffset) !== LOCAL) throw damaged(`${path} has no local header`);
    const start = localOffset + 30 + data.readUInt16LE(localOffset + 26) + data.readUInt16LE(localOffset + 28);
    if (start + compressed > data.length) throw damaged(`${path} is truncated`);
    const content = inflateEntry(data.subarray(start, start + compressed), method, ZIP_LIMITS.maxInflatedBytes - inflatedTotal, { file, path }, damaged);
    if (content.length !== declared) throw damaged(`${path} does not inflate to the size its directory declares`);
    inflatedTotal += content.length;
    files.push({ path, data: content });
  }
  return { files, skipped };
}
