/**
 * What an outside API said when it refused a call (an OpenAI-compatible chat or embeddings
 * endpoint), fit for an error message and a log line: its own error text when the body is the
 * usual `{ error: { message } }` shape, whitespace folded, anything that looks like a key masked
 * (and `secret` itself, when given: the key the call sent), an HTML page named as such, cut to
 * 300 characters.
 */
export function upstreamMessage(raw: string, secret?: string): string {
  let text = raw;
  try {
    const parsed = JSON.parse(raw) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'string') text = parsed.error;
    else if (parsed.error && typeof parsed.error.message === 'string') text = parsed.error.message;
    else if (typeof parsed.message === 'string') text = parsed.message;
  } catch {
    // not JSON: the raw text, if it is short and readable
  }
  if (secret) text = text.split(secret).join('[redacted]');
  text = text
    .replace(/\s+/g, ' ')
    .replace(/\b(sk|key|tok|hth)[-_][A-Za-z0-9_*-]{6,}/gi, '[redacted]')
    .replace(/\*{4,}\S*/g, '[redacted]')
    .trim();
  if (text.startsWith('<')) return 'an HTML page';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
