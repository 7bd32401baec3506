import { decodeHTML } from 'entities';

/** Elements whose content is raw text that is never shown: skipped up to their own end tag. */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp', 'noscript', 'noembed', 'noframes', 'iframe']);
/** Elements with parsed content that is not readable text (drawings, formulas, controls). */
const HIDDEN = new Set(['svg', 'math', 'template', 'select', 'object', 'canvas']);
/** Block elements that start a new paragraph (a blank line). */
const PARAGRAPH = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'ul', 'ol', 'dl', 'table', 'hr', 'figure', 'address', 'fieldset']);
/** Block elements that start a new line. */
const LINE = new Set([
  'div', 'li', 'tr', 'dt', 'dd', 'section', 'article', 'header', 'footer', 'nav', 'aside', 'main', 'form', 'details',
  'summary', 'figcaption', 'caption', 'thead', 'tbody', 'tfoot', 'body', 'html', 'legend', 'option', 'center',
]);
const CELL = new Set(['td', 'th']);

interface Token {
  start: number;
  end: number;
  /** The tag name, as written; none for comments, CDATA, doctypes and processing instructions. */
  name?: string;
  closing?: boolean;
  /** What stands between the name and the `>`. */
  attrs?: string;
}

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isNameChar = (c: number) => isLetter(c) || (c >= 48 && c <= 58) || c === 45; // 0-9, ':', '-'

/**
 * The tokens of `html` in order: comments (`<!--…-->`), CDATA sections, `<!…>` and `<?…>`, and
 * tags `<name attrs>` / `</name attrs>` whose `>` stands outside quoted values. A `<` that opens
 * no tag (no `>` follows before the end, or a quote never closes) is text.
 * A hand-written scanner in linear time: a regex for "a tag that may never close" backtracks
 * from every `<` to the end of the input (quadratic on `<a<a<a…`). Here the walk through a tag's
 * attributes is deterministic, and the positions of a walk that found no `>` are remembered, so
 * a later `<` whose walk reaches one of them stops there instead of walking to the end again.
 */
function tokenizer(html: string): (from: number) => Token | null {
  const n = html.length;
  let dead: Uint8Array | undefined;

  /** The attribute walk from `from`: the index of its `>`, or -1; `mark` records the positions of a failed walk. */
  const walk = (from: number, mark: boolean): number => {
    let p = from;
    while (p < n) {
      if (dead?.[p]) return -1;
      if (mark) dead![p] = 1;
      const c = html.charCodeAt(p);
      if (c === 62 /* > */) return p;
      if (c === 34 /* " */ || c === 39 /* ' */) {
        const close = html.indexOf(c === 34 ? '"' : "'", p + 1);
        if (close < 0) return -1;
        p = close + 1;
      } else p++;
    }
    return -1;
  };

  return (from) => {
    for (let i = html.indexOf('<', from); i >= 0; i = html.indexOf('<', i + 1)) {
      if (html.startsWith('<!--', i)) {
        const close = html.indexOf('-->', i + 4);
        return { start: i, end: close < 0 ? n : close + 3 };
      }
      if (html.startsWith('<![CDATA[', i)) {
        const close = html.indexOf(']]>', i + 9);
        return { start: i, end: close < 0 ? n : close + 3 };
      }
      const next = html.charCodeAt(i + 1);
      if (next === 33 /* ! */ || next === 63 /* ? */) {
        const close = html.indexOf('>', i + 2);
        return { start: i, end: close < 0 ? n : close + 1 };
      }
      const closing = next === 47; /* / */
      const nameStart = closing ? i + 2 : i + 1;
      if (!isLetter(html.charCodeAt(nameStart))) continue;
      let nameEnd = nameStart + 1;
      while (nameEnd < n && isNameChar(html.charCodeAt(nameEnd))) nameEnd++;
      const gt = walk(nameEnd, false);
      if (gt < 0) {
        dead ??= new Uint8Array(n);
        walk(nameEnd, true);
        continue;
      }
      return { start: i, end: gt + 1, name: html.slice(nameStart, nameEnd), closing, attrs: html.slice(nameEnd, gt) };
    }
    return null;
  };
}

/**
 * HTML to the text a reader sees: scripts, styles and other non-text elements dropped, block
 * elements as line breaks (paragraphs as blank lines), list items as "- " lines, table cells
 * separated by tabs, whitespace collapsed as a browser does (kept inside <pre>), entities decoded.
 * A small tokenizer rather than a DOM: uploads are at most 10 MiB and this runs in one pass.
 */
export function htmlToText(html: string): string {
  const out: string[] = [];
  let pendingBreaks = 0;
  let lastChar = '\n';
  let preDepth = 0;
  let hiddenDepth = 0;

  const emit = (chunk: string) => {
    if (chunk === '') return;
    if (pendingBreaks > 0 && out.length > 0) {
      out.push('\n'.repeat(pendingBreaks));
      lastChar = '\n';
    }
    pendingBreaks = 0;
    out.push(chunk);
    lastChar = chunk[chunk.length - 1]!;
  };
  const text = (raw: string) => {
    if (hiddenDepth > 0) return;
    const decoded = decodeHTML(raw);
    if (preDepth > 0) return emit(decoded);
    let collapsed = decoded.replace(/[ \t\n\r\f]+/g, ' ');
    if (pendingBreaks > 0 || lastChar === '\n' || lastChar === ' ' || lastChar === '\t') collapsed = collapsed.replace(/^ /, '');
    emit(collapsed);
  };
  const breakLine = (count: number) => {
    if (out.length > 0) pendingBreaks = Math.max(pendingBreaks, count);
  };

  let last = 0;
  const nextToken = tokenizer(html);
  for (let token = nextToken(0); token; token = nextToken(last)) {
    if (token.start > last) text(html.slice(last, token.start));
    last = token.end;
    const name = token.name?.toLowerCase();
    if (!name) continue; // comment, doctype, CDATA, processing instruction
    const closing = token.closing === true;
    const selfClosing = /\/\s*$/.test(token.attrs ?? '');
    if (RAW_TEXT.has(name)) {
      if (closing || selfClosing) continue;
      // Raw text ("<script>if (a</div>)…") ends only at the element's own end tag.
      const end = new RegExp(`</${name}\\s*>`, 'ig');
      end.lastIndex = last;
      last = end.exec(html) ? end.lastIndex : html.length;
      continue;
    }
    if (HIDDEN.has(name)) {
      if (!selfClosing) hiddenDepth = Math.max(0, hiddenDepth + (closing ? -1 : 1));
      continue;
    }
    if (hiddenDepth > 0) continue;
    if (name === 'br') {
      emit('\n');
      continue;
    }
    if (name === 'pre' && !selfClosing) preDepth = Math.max(0, preDepth + (closing ? -1 : 1));
    if (PARAGRAPH.has(name)) breakLine(2);
    else if (LINE.has(name)) breakLine(1);
    else if (CELL.has(name) && closing) emit('\t');
    if (name === 'li' && !closing) emit('- ');
  }
  if (last < html.length) text(html.slice(last));

  return out
    .join('')
    // (?<!…): a run of blanks is tried from its start only (a run not ending in \n was quadratic).
    .replace(/(?<![ \t])[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
