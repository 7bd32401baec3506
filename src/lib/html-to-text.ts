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

const TOKEN = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<[!?][^>]*>?|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;

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
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(html); match; match = TOKEN.exec(html)) {
    if (match.index > last) text(html.slice(last, match.index));
    last = TOKEN.lastIndex;
    const name = match[2]?.toLowerCase();
    if (!name) continue; // comment, doctype, CDATA, processing instruction
    const closing = match[1] === '/';
    const selfClosing = /\/\s*$/.test(match[3] ?? '');
    if (RAW_TEXT.has(name)) {
      if (closing || selfClosing) continue;
      // Raw text ("<script>if (a</div>)…") ends only at the element's own end tag.
      const end = new RegExp(`</${name}\\s*>`, 'ig');
      end.lastIndex = last;
      last = end.exec(html) ? end.lastIndex : html.length;
      TOKEN.lastIndex = last;
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
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
