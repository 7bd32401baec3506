/**
 * Bringing memory from other tools: an upload read in its format (memory-import.formats.ts),
 * its repeats kept once, and its entries written by the memory module in one transaction (all
 * or none), on the `import` channel, with the other tool named in each entry's source.
 */
import { AppError } from '../../http/errors.js';
import { MEMORY_CONTENT_MAX_BYTES, type MemoryService, type MemoryWriter } from '../memory/memory.service.js';
import { parseImport, type ImportFormat, type ImportItem, type Skipped } from './memory-import.formats.js';
import type { MemoryImportResultData } from './memory-import.schemas.js';

const MiB = 1024 * 1024;

/** The largest upload or pasted text one import reads. */
export const IMPORT_MAX_BYTES = 10 * MiB;
/** The most entries one import writes (after splitting, before repeats are dropped). */
export const IMPORT_MAX_ENTRIES = 10_000;
/**
 * The most lines or records one import skips (blank lines aside): a file that is mostly not
 * memory is refused while it is read rather than held record by record.
 */
export const IMPORT_MAX_SKIPPED = 100_000;
/** How many entries and skipped lines the answer lists (the counts have them all). */
export const IMPORT_ENTRIES_SHOWN = 500;
export const IMPORT_SKIPPED_SHOWN = 200;

export interface MemoryImportInput {
  format: ImportFormat;
  data: Buffer;
  /** The file's name as uploaded, or a name for pasted text: it names the file in messages. */
  file: string;
  dryRun: boolean;
}

/** The words of an entry as compared for repeats: case, width and runs of white space aside. */
const sameness = (content: string) => content.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();

/** The items without repeats: the first of each is kept, with the tags of all of them. */
function withoutRepeats(items: ImportItem[], skipped: Skipped[]): { kept: ImportItem[]; duplicates: number } {
  const first = new Map<string, ImportItem>();
  let duplicates = 0;
  for (const item of items) {
    const key = sameness(item.content);
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, { ...item, tags: [...item.tags] });
      continue;
    }
    duplicates++;
    for (const tag of item.tags) if (!earlier.tags.includes(tag) && earlier.tags.length < 20) earlier.tags.push(tag);
    skipped.push({ where: item.where, reason: `a repeat of ${earlier.where}: imported once` });
  }
  return { kept: [...first.values()], duplicates };
}

export function createMemoryImportService(deps: { memory: Pick<MemoryService, 'importEntries'> }) {
  const { memory } = deps;
  return {
    async run(ownerId: string, input: MemoryImportInput, writer: MemoryWriter): Promise<MemoryImportResultData> {
      if (input.data.length > IMPORT_MAX_BYTES) {
        throw new AppError('PAYLOAD_TOO_LARGE', `${input.file} is ${input.data.length} bytes; an import reads at most ${IMPORT_MAX_BYTES} (10 MiB). Import it in parts; nothing was imported`, {
          details: { file: input.file, bytes: input.data.length, maxBytes: IMPORT_MAX_BYTES },
        });
      }
      // Reading stops, refused, at one entry past the bound (and at the skipped bound): the parsed
      // records are never more than that, whatever the file holds.
      const parsed = parseImport(input.format, input.data, input.file, MEMORY_CONTENT_MAX_BYTES, { entries: IMPORT_MAX_ENTRIES, skipped: IMPORT_MAX_SKIPPED });
      if (parsed.items.length > IMPORT_MAX_ENTRIES) {
        throw new AppError(
          'PAYLOAD_TOO_LARGE',
          `${input.file} holds ${parsed.items.length} entries; an import writes at most ${IMPORT_MAX_ENTRIES}. Import it in parts; nothing was imported`,
          { details: { file: input.file, entries: parsed.items.length, maxEntries: IMPORT_MAX_ENTRIES } },
        );
      }
      const skipped = [...parsed.skipped];
      const { kept, duplicates } = withoutRepeats(parsed.items, skipped);
      // Oldest first, so that the list (newest first) shows the other tool's newest first; the
      // undated keep their order, after the dated.
      const ordered = kept
        .map((item, index) => ({ item, index }))
        .sort((a, b) => {
          const [x, y] = [a.item.createdAt, b.item.createdAt];
          if (x !== y) return x === undefined ? 1 : y === undefined ? -1 : x < y ? -1 : 1;
          return a.index - b.index;
        })
        .map(({ item }) => item);
      const entries = await memory.importEntries(
        ownerId,
        ordered.map((item) => ({ content: item.content, kind: item.kind, tags: item.tags, pinned: item.pinned, createdAt: item.createdAt, source: item.source })),
        writer,
        { dryRun: input.dryRun },
      );
      return {
        format: input.format,
        dryRun: input.dryRun,
        counts: { entries: entries.length, skipped: skipped.length, duplicates, split: parsed.split },
        entries: entries.slice(0, IMPORT_ENTRIES_SHOWN).map((entry) => ({ ...entry, id: input.dryRun ? null : entry.id })),
        entriesTruncated: entries.length > IMPORT_ENTRIES_SHOWN,
        skipped: skipped.slice(0, IMPORT_SKIPPED_SHOWN),
      };
    },
  };
}

export type MemoryImportService = ReturnType<typeof createMemoryImportService>;
