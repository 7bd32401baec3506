/**
 * The knowledge base's size limits, in a file of their own (no imports) so that configuration can
 * bound its settings by them.
 */

/** Largest document text, and largest uploaded file: 10 MiB. */
export const KB_MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
export const KB_MAX_CONTENT_BYTES = KB_MAX_UPLOAD_BYTES;
