import { apiError, sessionHeaders, signedOut, type Schemas } from './client';

export const UPLOAD_PATH = '/api/v1/brain/knowledge-base/upload';

/** What an upload reports while it runs: bytes sent so far, and the total when the browser knows it. */
export type UploadProgress = (sent: number, total: number | undefined) => void;

/**
 * Uploads one file into the knowledge base. XMLHttpRequest rather than fetch, because only it
 * reports the upload's progress. The request is same-origin, so the browser sends the session
 * cookie by itself (the page never holds a token); the session binding goes beside it. Errors are the API's own (an ApiError with
 * its code and message); a network failure is a TypeError, as with fetch.
 */
export function uploadDocument(file: File, onProgress: UploadProgress, signal?: AbortSignal): Promise<Schemas['KBDocument']> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', UPLOAD_PATH);
    xhr.setRequestHeader('accept', 'application/json');
    for (const [name, value] of Object.entries(sessionHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : undefined);
    xhr.onload = () => {
      const body = parseJson(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300 && body && typeof body === 'object' && 'data' in body) {
        resolve((body as Schemas['KBDocumentResponse']).data);
        return;
      }
      if (xhr.status === 401) signedOut();
      reject(apiError(xhr.status, xhr.statusText, body));
    };
    xhr.onerror = () => reject(new TypeError('The upload could not reach the server'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled', 'AbortError'));
    if (signal) {
      if (signal.aborted) return xhr.abort();
      signal.addEventListener('abort', () => xhr.abort(), { once: true });
    }
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
