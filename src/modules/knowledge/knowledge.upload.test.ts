import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { multipart, type FormPart } from '../../../test/multipart.js';
import { deflatedSpaces, handZip } from '../../../test/hostile-files.js';

const UPLOAD = '/api/v1/brain/knowledge-base/upload';
const MiB = 1024 * 1024;
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

let t: TestApp;
let owner: Owner;

// ---------------------------------------------------------------------------------------------
// Files made here, byte by byte, so that the tests depend on no fixture and no outside tool.


/** A one-page PDF 1.4 with one line of text in Helvetica, with a correct cross-reference table. */
function makePdf(lines: string[]): Buffer {
  const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = `BT /F1 14 Tf 72 720 Td 18 TL ${lines.map((l) => `(${escape(l)}) Tj T*`).join(' ')} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** The smallest DOCX Word opens: content types, the package relationship, and the document. */
function makeDocx(paragraphs: string[]): Buffer {
  const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${xmlEscape(p)}</w:t></w:r></w:p>`).join('');
  const files = {
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
        '</Types>',
    ),
    '_rels/.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
        '</Relationships>',
    ),
    'word/document.xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
    ),
  };
  return Buffer.from(zipSync(files));
}

/** A .docx whose document.xml is `xml` deflated, declared as `declaredSize` bytes. */
function docxWithDocument(xml: Buffer, declaredSize: number): Buffer {
  const stored = (name: string, text: string) => ({ name, method: 0 as const, data: Buffer.from(text), size: Buffer.byteLength(text) });
  return handZip([
    stored('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    stored('_rels/.rels', '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>'),
    { name: 'word/document.xml', method: 8, data: xml, size: declaredSize },
  ]);
}

const HTML = `<!DOCTYPE html>
<html><head><title>Ignored title</title><style>body { color: red; }</style>
<script>window.secretToken = "do-not-index"; if (a < b) { document.write("</p>"); }</script></head>
<body>
  <h1>Release&nbsp;plan</h1>
  <p>Ship on <b>Friday</b> &amp; celebrate &mdash; or &#8220;not&#8221;.</p>
  <ul><li>first item</li><li>second item</li></ul>
  <!-- a comment that must vanish -->
  <div>Line one<br>Line two</div>
  <noscript>Enable JavaScript</noscript>
</body></html>`;

interface Sample {
  kind: string;
  filename: string;
  contentType: string;
  data: Buffer;
  mimeType: string;
  expectText: string[];
}

const SAMPLES: Sample[] = [
  {
    kind: 'txt',
    filename: 'notes.txt',
    contentType: 'text/plain',
    data: Buffer.from('Plain text notes.\nSecond line with ünïcode.\n', 'utf8'),
    mimeType: 'text/plain',
    expectText: ['Plain text notes.\nSecond line with ünïcode.\n'],
  },
  {
    kind: 'md',
    filename: 'readme.md',
    // Clients often label Markdown as text/plain or application/octet-stream; the extension decides.
    contentType: 'application/octet-stream',
    data: Buffer.from('# Heading\n\n- bullet *one*\n- bullet two\n', 'utf8'),
    mimeType: 'text/markdown',
    expectText: ['# Heading\n\n- bullet *one*\n- bullet two\n'],
  },
  {
    kind: 'html',
    filename: 'page.html',
    contentType: 'text/html; charset=utf-8',
    data: Buffer.from(HTML, 'utf8'),
    mimeType: 'text/html',
    expectText: ['Release\u00a0plan', 'Ship on Friday & celebrate — or “not”.', '- first item\n- second item', 'Line one\nLine two'],
  },
  {
    kind: 'pdf',
    filename: 'report.pdf',
    contentType: 'application/pdf',
    data: makePdf(['Quarterly report (draft)', 'Revenue grew by 12 percent']),
    mimeType: 'application/pdf',
    expectText: ['Quarterly report (draft)', 'Revenue grew by 12 percent'],
  },
  {
    kind: 'docx',
    filename: 'memo.docx',
    contentType: DOCX_TYPE,
    data: makeDocx(['Memo to the team', 'Budget & timeline <approved>']),
    mimeType: DOCX_TYPE,
    expectText: ['Memo to the team', 'Budget & timeline <approved>'],
  },
];

const PART_NAMES = ['file', 'document', 'upload', 'kbFile'];

/** Posts a form with the owner's master token, another token, or (null) none. */
async function upload(parts: FormPart[], token: string | null = owner.token) {
  const form = multipart(parts);
  return t.request('POST', UPLOAD, { token: token ?? undefined, body: form.body, headers: form.headers });
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Uploader');
});
afterAll(async () => t.close());

describe('upload: every file type under every part name', () => {
  for (const sample of SAMPLES) {
    for (const partName of PART_NAMES) {
      it(`${sample.kind} as "${partName}"`, async () => {
        const title = `${sample.kind} via ${partName}`;
        const res = await upload([
          { name: 'title', data: title },
          { name: partName, filename: sample.filename, contentType: sample.contentType, data: sample.data },
        ]);
        expect(res.status, res.text).toBe(201);
        const doc = res.body.data;
        expect(doc).toEqual({
          id: expect.stringMatching(/^doc_/),
          title,
          content: expect.any(String),
          source: 'upload',
          mimeType: sample.mimeType,
          sizeBytes: Buffer.byteLength(doc.content, 'utf8'),
          // The file as uploaded, beside its text.
          fileBytes: Buffer.byteLength(sample.data),
          createdAt: expect.any(String),
          updatedAt: doc.createdAt,
        });
        for (const text of sample.expectText) expect(doc.content).toContain(text);

        const stored = await t.request('GET', `/api/v1/brain/knowledge-base/${doc.id}`, { token: owner.token });
        expect(stored.body.data).toEqual(doc);
      });
    }
  }

  it('keeps only readable HTML text: no script, style, comment or head', async () => {
    const res = await upload([{ name: 'file', filename: 'clean.html', contentType: 'text/html', data: Buffer.from(HTML) }]);
    expect(res.status).toBe(201);
    const content: string = res.body.data.content;
    for (const hidden of ['secretToken', 'do-not-index', 'document.write', 'color: red', 'a comment', 'Ignored title', 'Enable JavaScript', '<', '&amp;']) {
      expect(content).not.toContain(hidden);
    }
    expect(content).toBe('Release\u00a0plan\n\nShip on Friday & celebrate — or “not”.\n\n- first item\n- second item\n\nLine one\nLine two');
  });

  it('finds uploaded text with search', async () => {
    await upload([{ name: 'file', filename: 'zebra.pdf', contentType: 'application/pdf', data: makePdf(['Zebras migrate seasonally']) }]);
    const res = await t.request('GET', '/api/v1/brain/knowledge-base', { token: owner.token, query: { q: 'zebras' } });
    expect(res.body.data.map((d: { title: string }) => d.title)).toEqual(['zebra.pdf']);
  });
});

describe('upload defaults and fields', () => {
  it('takes the file name as title and "upload" as source', async () => {
    const res = await upload([{ name: 'file', filename: 'Default title.txt', contentType: 'text/plain', data: 'hello' }]);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ title: 'Default title.txt', source: 'upload', content: 'hello', sizeBytes: 5, fileBytes: 5, mimeType: 'text/plain' });
  });

  it('reads title and source fields sent after the file', async () => {
    const res = await upload([
      { name: 'document', filename: 'x.md', contentType: 'text/markdown', data: '# x' },
      { name: 'title', data: '  Given title  ' },
      { name: 'source', data: 'email' },
      { name: 'ignored', data: 'extra form input' },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ title: 'Given title', source: 'email', mimeType: 'text/markdown' });
  });

  it('detects the type from the Content-Type when the name has no known extension', async () => {
    const res = await upload([{ name: 'file', filename: 'clipboard', contentType: 'text/html', data: '<p>from the <i>clipboard</i></p>' }]);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ mimeType: 'text/html', content: 'from the clipboard' });
  });

  it('reads Windows-1252 and UTF-16 text files', async () => {
    const cp1252 = await upload([{ name: 'file', filename: 'old.txt', contentType: 'text/plain', data: Buffer.from([0x93, 0x63, 0x61, 0x66, 0xe9, 0x94]) }]);
    expect(cp1252.body.data.content).toBe('“café”');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('wide text', 'utf16le')]);
    const wide = await upload([{ name: 'file', filename: 'wide.txt', contentType: 'text/plain', data: utf16 }]);
    expect(wide.body.data.content).toBe('wide text');
  });
});

describe('upload errors', () => {
  it('answers 415 for unsupported types', async () => {
    const exe = await upload([{ name: 'file', filename: 'setup.exe', contentType: 'application/octet-stream', data: Buffer.from('MZ\x90\x00binary') }]);
    expect(expectError(exe, 415, 'UNSUPPORTED_MEDIA_TYPE').message).toContain('.pdf');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expectError(await upload([{ name: 'file', filename: 'image.png', contentType: 'image/png', data: png }]), 415, 'UNSUPPORTED_MEDIA_TYPE');
    // A binary file in a text file's clothing.
    expectError(await upload([{ name: 'file', filename: 'image.txt', contentType: 'text/plain', data: png }]), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 415 when the magic bytes contradict the name', async () => {
    const notPdf = await upload([{ name: 'file', filename: 'fake.pdf', contentType: 'application/pdf', data: '<html>an error page</html>' }]);
    expect(expectError(notPdf, 415, 'UNSUPPORTED_MEDIA_TYPE').message).toContain('%PDF');
    expectError(await upload([{ name: 'file', filename: 'fake.docx', contentType: DOCX_TYPE, data: 'plain words' }]), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 400 with a clear message for a corrupt PDF or DOCX, never 500', async () => {
    const corruptPdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(2048)]);
    const pdf = expectError(await upload([{ name: 'file', filename: 'broken.pdf', contentType: 'application/pdf', data: corruptPdf }]), 400, 'VALIDATION_ERROR');
    expect(pdf.message).toContain('broken.pdf could not be read as a PDF');
    const truncated = makePdf(['cut short']).subarray(0, 120);
    expectError(await upload([{ name: 'file', filename: 'cut.pdf', contentType: 'application/pdf', data: truncated }]), 400, 'VALIDATION_ERROR');

    const corruptDocx = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), randomBytes(512)]);
    const docx = expectError(await upload([{ name: 'file', filename: 'broken.docx', contentType: DOCX_TYPE, data: corruptDocx }]), 400, 'VALIDATION_ERROR');
    expect(docx.message).toContain('broken.docx');
    const notWord = Buffer.from(zipSync({ 'hello.txt': strToU8('just a zip') }));
    expectError(await upload([{ name: 'file', filename: 'zip.docx', contentType: DOCX_TYPE, data: notWord }]), 400, 'VALIDATION_ERROR');
  });

  it('security: a .docx whose zip directory understates its sizes is refused before it is inflated', async () => {
    // 260 KB that declare a 1 KB document.xml and inflate to 256 MiB: mammoth's JSZip inflated it all first.
    const bomb = docxWithDocument(deflatedSpaces(256), 1024);
    expect(bomb.length).toBeLessThan(300 * 1024);
    let res = await upload([{ name: 'file', filename: 'bomb.docx', contentType: DOCX_TYPE, data: bomb }]);
    // This message comes from the check against the directory, made before inflating more than declared.
    expect(expectError(res, 400, 'VALIDATION_ERROR').message).toContain('the .docx expands beyond what its zip directory declares');

    // Declaring honestly more than EXTRACT_MAX_INFLATED_BYTES (32 MiB) is refused without inflating anything.
    res = await upload([{ name: 'file', filename: 'huge.docx', contentType: DOCX_TYPE, data: docxWithDocument(deflatedSpaces(150), 150 * MiB) }]);
    expect(expectError(res, 413, 'PAYLOAD_TOO_LARGE').message).toBe(
      'huge.docx: the .docx expands beyond 32 MiB, the limit (EXTRACT_MAX_INFLATED_BYTES); it is refused',
    );

    // A stored entry longer than declared, and a deflated one that expands to less, are refused too.
    const xml = Buffer.from('<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body/></w:document>');
    for (const data of [
      handZip([{ name: 'word/document.xml', method: 0, data: xml, size: xml.length - 1 }]),
      docxWithDocument(deflateRawSync(xml), xml.length + 1),
    ]) {
      res = await upload([{ name: 'file', filename: 'odd.docx', contentType: DOCX_TYPE, data }]);
      expect(expectError(res, 400, 'VALIDATION_ERROR').message).toContain('zip directory declares');
    }
    // The same document with true sizes passes the check (mammoth then finds no text in it).
    res = await upload([{ name: 'file', filename: 'empty.docx', contentType: DOCX_TYPE, data: docxWithDocument(deflateRawSync(xml), xml.length) }]);
    expect(expectError(res, 400, 'VALIDATION_ERROR').message).not.toContain('declares');
  });

  it('answers 400 for a PDF without text, and for an empty file', async () => {
    const blank = expectError(await upload([{ name: 'file', filename: 'blank.pdf', contentType: 'application/pdf', data: makePdf([]) }]), 400, 'VALIDATION_ERROR');
    expect(blank.message).toContain('no extractable text');
    expectError(await upload([{ name: 'file', filename: 'empty.txt', contentType: 'text/plain', data: '' }]), 400, 'VALIDATION_ERROR');
  });

  it('answers 413 for a file over 10 MiB', async () => {
    const big = Buffer.alloc(11 * MiB, 'a');
    const res = expectError(await upload([{ name: 'file', filename: 'big.txt', contentType: 'text/plain', data: big }]), 413, 'PAYLOAD_TOO_LARGE');
    expect(res.message).toContain('10 MiB');
    // Exactly at the limit is accepted, though it is ten times the global body limit.
    const atLimit = await upload([{ name: 'file', filename: 'limit.txt', contentType: 'text/plain', data: Buffer.alloc(10 * MiB, 'b') }]);
    expect(atLimit.status).toBe(201);
    expect(atLimit.body.data.sizeBytes).toBe(10 * MiB);
  });

  it('answers 400 without a file part, for a wrong part name, for two files, or for a file sent as a plain field', async () => {
    const none = expectError(await upload([{ name: 'title', data: 'only a title' }]), 400, 'VALIDATION_ERROR');
    expect(none.message).toContain('file, document, upload or kbFile');
    expectError(await upload([]), 400, 'VALIDATION_ERROR');
    const wrong = expectError(await upload([{ name: 'attachment', filename: 'a.txt', contentType: 'text/plain', data: 'x' }]), 400, 'VALIDATION_ERROR');
    expect(wrong.message).toContain('attachment');
    const two = await upload([
      { name: 'file', filename: 'a.txt', contentType: 'text/plain', data: 'a' },
      { name: 'document', filename: 'b.txt', contentType: 'text/plain', data: 'b' },
    ]);
    expectError(two, 400, 'VALIDATION_ERROR');
    expectError(await upload([{ name: 'file', data: 'no filename' }]), 400, 'VALIDATION_ERROR');
  });

  it('answers 400 for a malformed multipart body', async () => {
    const res = await t.request('POST', UPLOAD, {
      token: owner.token,
      body: Buffer.from('--abc\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nno closing boundary'),
      headers: { 'content-type': 'multipart/form-data; boundary=abc' },
    });
    expectError(res, 400, 'VALIDATION_ERROR');
    const noBoundary = await t.request('POST', UPLOAD, { token: owner.token, body: Buffer.from('x'), headers: { 'content-type': 'multipart/form-data' } });
    expectError(noBoundary, 400, 'VALIDATION_ERROR');
  });

  it('answers 415 to JSON sent to the upload route', async () => {
    const res = await t.request('POST', UPLOAD, { token: owner.token, body: { title: 'x', content: 'y' } });
    expect(expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE').message).toContain('multipart/form-data');
  });

  it('answers 409 when the title exists', async () => {
    const first = await upload([{ name: 'file', filename: 'twice.txt', contentType: 'text/plain', data: 'one' }]);
    expect(first.status).toBe(201);
    const second = expectError(await upload([{ name: 'file', filename: 'twice.txt', contentType: 'text/plain', data: 'two' }]), 409, 'CONFLICT');
    expect(second.message).toContain('upsert');
  });

  it('answers 401 without a token and 403 without the knowledge scope', async () => {
    const file: FormPart = { name: 'file', filename: 'x.txt', contentType: 'text/plain', data: 'x' };
    expectError(await upload([file], null), 401, 'UNAUTHORIZED');
    const token = await t.tokenWithScopes(owner, ['memory']);
    expectError(await upload([file], token), 403, 'INSUFFICIENT_SCOPE');
    const scoped = await t.tokenWithScopes(owner, ['knowledge']);
    expect((await upload([{ ...file, filename: 'scoped.txt' }], scoped)).status).toBe(201);
  });
});

describe('OpenAPI', () => {
  it('documents the upload form', async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const operation = res.body.paths['/api/v1/brain/knowledge-base/upload'].post;
    expect(operation.operationId).toBe('uploadKBDocument');
    expect(operation.requestBody.content['multipart/form-data'].schema.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(Object.keys(operation.responses)).toContain('201');
  });
});
