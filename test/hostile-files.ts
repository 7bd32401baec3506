/**
 * Files that cost a parser far more than their size, made here byte by byte (no fixture, no
 * outside tool): a PDF whose page tree names one page thousands of times, a PDF whose content
 * stream inflates to hundreds of MiB, and DOCX files whose XML inflates to what is asked.
 */
import { deflateRawSync, constants as zlibConstants } from 'node:zlib';

const MiB = 1024 * 1024;

/** A PDF 1.4 of the given objects (numbered from 1, the first the catalog), with a correct cross-reference table. */
export function pdfOf(objects: Array<string | Buffer>): Buffer {
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const piece = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), Buffer.from('\nendobj\n', 'latin1')]);
    chunks.push(piece);
    length += piece.length;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) tail += `${String(offset).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  chunks.push(Buffer.from(tail, 'latin1'));
  return Buffer.concat(chunks);
}

const escapePdf = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);

/**
 * A PDF whose page tree lists the same page object `pages` times (40,000 takes 240 KB): a reader
 * that trusts the tree reads that page 40,000 times. The page holds `text` once.
 */
export function pdfRepeatingOnePage(pages: number, text = 'The same page, again.'): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${escapePdf(text)}) Tj ET`;
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array<string>(pages).fill('3 0 R').join(' ')}] /Count ${pages} >>`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/** A raw deflate stream of `mib` MiB of spaces, about 1 KB per MiB, made without allocating them all. */
export function deflatedSpaces(mib: number): Buffer {
  // A full flush ends each MiB on a byte boundary without ending the stream, so the piece repeats.
  const piece = deflateRawSync(Buffer.alloc(MiB, 0x20), { finishFlush: zlibConstants.Z_FULL_FLUSH });
  return Buffer.concat([...Array<Buffer>(mib).fill(piece), Buffer.from([0x03, 0x00])]); // + an empty final block
}

/** A one-page PDF whose content stream (FlateDecode) inflates to `mib` MiB: a line of text, then spaces. */
export function pdfInflatingContent(mib: number): Buffer {
  const head = deflateRawSync(Buffer.from('BT /F1 12 Tf 72 720 Td (Inflated) Tj ET\n', 'latin1'), { finishFlush: zlibConstants.Z_FULL_FLUSH });
  // A zlib stream: header, the deflate blocks, and (unchecked by readers that stream) an Adler-32.
  const data = Buffer.concat([Buffer.from([0x78, 0x9c]), head, deflatedSpaces(mib), Buffer.alloc(4)]);
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    Buffer.concat([Buffer.from(`<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/**
 * A zip written by hand, each entry's declared size as given: unlike a zip tool's, its directory
 * may lie about what an entry's data expands to. Method 0 stores, 8 deflates (data given raw).
 */
export function handZip(entries: Array<{ name: string; method: 0 | 8; data: Buffer; size: number }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(entry.method, 8);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(entry.method, 10);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += 30 + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A zip of deflated entries, honestly declared (fflate is not used: its output is held whole before writing). */
export function zipOf(entries: Array<{ name: string; data: Buffer }>): Buffer {
  return handZip(entries.map((entry) => ({ name: entry.name, method: 8, data: deflateRawSync(entry.data), size: entry.data.length })));
}

/**
 * A valid .docx whose word/document.xml is about `mib` MiB of one-letter paragraphs (honestly
 * declared): the shape that costs an XML reader the most objects per byte.
 */
export function docxInflatingTo(mib: number): Buffer {
  const paragraph = '<w:p><w:r><w:t>a</w:t></w:r></w:p>';
  const head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
  const tail = '</w:body></w:document>';
  const xml = Buffer.concat([Buffer.from(head), Buffer.alloc(Math.floor((mib * MiB) / paragraph.length) * paragraph.length, paragraph), Buffer.from(tail)]);
  return zipOf([
    {
      name: '[Content_Types].xml',
      data: Buffer.from(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
          '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
    },
    {
      name: '_rels/.rels',
      data: Buffer.from(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
      ),
    },
    { name: 'word/document.xml', data: xml },
  ]);
}
