/**
 * Content negotiation by the Accept header (RFC 9110 §12.5.1), for the routes that answer more
 * than JSON: a skill's content as markdown, a chat reply as a server-sent event stream.
 */

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [mediaType = '', ...params] = part.split(';');
    const [type, subtype] = mediaType.trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name?.trim().toLowerCase() === 'q') {
        const parsed = Number(value?.trim());
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The quality the client gives a media type, from its most specific matching range. */
function quality(ranges: MediaRange[], type: string, subtype: string): { q: number; specificity: number } {
  let best = { q: 0, specificity: -1 };
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' ? 0 : -1;
    if (specificity > best.specificity) best = { q: range.q, specificity };
  }
  return best;
}

/**
 * JSON unless the client asks for markdown over JSON. A tie goes to the type the client named
 * more precisely: text/markdown listed beside the wildcard gets markdown, the wildcard alone JSON.
 */
export function prefersMarkdown(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const markdown = quality(ranges, 'text', 'markdown');
  const json = quality(ranges, 'application', 'json');
  if (markdown.q <= 0) return false;
  return markdown.q > json.q || (markdown.q === json.q && markdown.specificity > json.specificity);
}

/**
 * A stream when the client names text/event-stream over JSON. Naming both equally (as some
 * clients always do) gets JSON; event-stream beside a wildcard gets the stream.
 */
export function wantsEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const stream = quality(ranges, 'text', 'event-stream');
  const json = quality(ranges, 'application', 'json');
  if (stream.specificity < 2 || stream.q <= 0) return false;
  return stream.q > json.q || (stream.q === json.q && json.specificity < 2);
}
