import { inflateRawSync } from 'node:zlib';

/**
 * Reading zip files that come from outside (a .docx upload, an uploaded archive) without trusting
 * what they declare: the directory is read as JSZip and most readers do (the last
 * end-of-directory record, every central entry found from the directory's offset, each entry's
 * data after its local header); what readers disagree on is refused (ZIP64, prepended bytes,
 * encryption, methods other than stored and deflate); the declared sizes must add up to at most a
 * budget before anything is inflated, and an entry is inflated with zlib's output capped at the
 * size it declares, so a directory that lies never makes anything larger be allocated.
 */

/** An entry of a zip's central directory, where its data starts in the file. */
export interface ZipEntry {
  name: string;
  /** The raw bytes of the name, for callers that must refuse names that are not UTF-8. */
  nameBytes: Buffer;
  method: number;
  compressed: number;
  size: number;
  dataStart: number;
}

/** How the caller refuses a zip: each answers the error to throw. */
export interface ZipRefusals {
  damaged: (why: string) => Error;
  tooLarge: () => Error;
  lying: (name: string, beyond: boolean) => Error;
}

const ZIP_LOCAL_HEADER = 0x04034b50;
const ZIP_CENTRAL_HEADER = 0x02014b50;
const ZIP_END = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/**
 * The zip's entries, refused as soon as one is damaged, when there are more than `maxEntries`, or
 * when the declared sizes pass `budget`.
 */
export function readZipDirectory(data: Buffer, budget: number, { damaged, tooLarge }: ZipRefusals, maxEntries = 100_000): ZipEntry[] {
  const end = data.lastIndexOf(ZIP_END);
  if (end < 0 || end + 22 > data.length) throw damaged('no end of central directory');
  const directorySize = data.readUInt32LE(end + 12);
  const directoryOffset = data.readUInt32LE(end + 16);
  for (const at of [4, 6, 8, 10]) if (data.readUInt16LE(end + at) === 0xffff) throw damaged('ZIP64 archive');
  if (directorySize === 0xffffffff || directoryOffset === 0xffffffff) throw damaged('ZIP64 archive');
  if (directoryOffset + directorySize !== end) throw damaged('the central directory is not where it says');

  const entries: ZipEntry[] = [];
  let declared = 0;
  let compressedTotal = 0;
  for (let at = directoryOffset; at + 4 <= data.length && data.readUInt32LE(at) === ZIP_CENTRAL_HEADER; ) {
    if (at + 46 > data.length) throw damaged('truncated central directory');
    if (entries.length >= maxEntries) throw damaged(`more than ${maxEntries} entries`);
    const flags = data.readUInt16LE(at + 8);
    const method = data.readUInt16LE(at + 10);
    const compressed = data.readUInt32LE(at + 20);
    const size = data.readUInt32LE(at + 24);
    const nameLength = data.readUInt16LE(at + 28);
    const localOffset = data.readUInt32LE(at + 42);
    const nameBytes = data.subarray(at + 46, Math.min(at + 46 + nameLength, data.length));
    const name = nameBytes.toString('utf8').slice(0, 200);
    at += 46 + nameLength + data.readUInt16LE(at + 30) + data.readUInt16LE(at + 32);
    if (flags & 1) throw damaged(`${name} is encrypted`);
    if (compressed === 0xffffffff || size === 0xffffffff || localOffset === 0xffffffff) throw damaged('ZIP64 archive');
    if (method !== 0 && method !== 8) throw damaged(`${name} uses compression method ${method}`);
    if (localOffset + 30 > data.length || data.readUInt32LE(localOffset) !== ZIP_LOCAL_HEADER) throw damaged(`no local header for ${name}`);
    const dataStart = localOffset + 30 + data.readUInt16LE(localOffset + 26) + data.readUInt16LE(localOffset + 28);
    if (dataStart + compressed > data.length) throw damaged(`${name} is truncated`);
    declared += size;
    // Entries never share data: their compressed sizes add up to at most the file, which bounds the inflating work.
    compressedTotal += compressed;
    if (declared > budget) throw tooLarge();
    if (compressedTotal > data.length) throw damaged('entries overlap');
    entries.push({ name, nameBytes: Buffer.from(nameBytes), method, compressed, size, dataStart });
  }
  if (entries.length === 0) throw damaged('no entries');
  return entries;
}

/** An entry's content, refused unless it expands to exactly the size it declares (never more is allocated). */
export function inflateZipEntry(data: Buffer, entry: ZipEntry, { damaged, lying }: ZipRefusals): Buffer {
  if (entry.size === 0) return Buffer.alloc(0);
  const raw = data.subarray(entry.dataStart, entry.dataStart + entry.compressed);
  if (entry.method === 0) {
    if (entry.compressed !== entry.size) throw lying(entry.name, entry.compressed > entry.size);
    return raw;
  }
  let inflated: Buffer;
  try {
    inflated = inflateRawSync(raw, { maxOutputLength: entry.size });
  } catch (error) {
    if ((error as { code?: string })?.code === 'ERR_BUFFER_TOO_LARGE') throw lying(entry.name, true);
    throw damaged(`${entry.name} does not inflate`);
  }
  if (inflated.length !== entry.size) throw lying(entry.name, false);
  return inflated;
}

/**
 * Why an entry name may not be used as a path inside an archive, or null when it is safe: a
 * relative path of plain segments, no `..`, no absolute path or drive, no backslash, no control
 * character (a name that escapes the archive's folder when someone unpacks it).
 */
export function unsafeEntryName(name: string): string | null {
  if (name.length === 0) return 'an empty name';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.includes('\\')) return 'a backslash';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'a control character';
  if (name.split('/').some((segment) => segment === '..' || segment === '.')) return 'a ".." or "." segment';
  return null;
}
