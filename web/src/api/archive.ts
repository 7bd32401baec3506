import { apiError, sessionHeaders, signedOut, type Schemas } from './client';

/** An answer's text as JSON; undefined when it is empty or not JSON (a proxy's error page). */
function jsonOrNothing(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends an archive to POST /api/v1/import (a dry run, or the import itself). XMLHttpRequest rather
 * than fetch, for the upload's progress; the session cookie goes by itself, its binding beside it.
 */
export function sendArchive(
  file: File,
  options: { dryRun: boolean; passphrase: string },
  onProgress: (sent: number, total: number) => void,
): Promise<Schemas['ImportReport']> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v1/import${options.dryRun ? '?dryRun=true' : ''}`);
    xhr.setRequestHeader('accept', 'application/json');
    for (const [name, value] of Object.entries(sessionHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onload = () => {
      const body = jsonOrNothing(xhr.responseText);
      if (xhr.status === 200 && body && typeof body === 'object' && 'data' in body) return resolve((body as { data: Schemas['ImportReport'] }).data);
      if (xhr.status === 401) signedOut();
      reject(apiError(xhr.status, xhr.statusText, body));
    };
    xhr.onerror = () => reject(new TypeError('The archive could not reach the server'));
    const form = new FormData();
    if (options.passphrase) form.append('passphrase', options.passphrase);
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

/** Downloads a finished export with the session (a plain link would not carry the session binding) and hands it to the browser as a file. */
export async function downloadExport(url: string, filename: string): Promise<void> {
  const res = await fetch(url, { headers: sessionHeaders(), credentials: 'same-origin' });
  if (!res.ok) {
    if (res.status === 401) signedOut();
    throw apiError(res.status, res.statusText, jsonOrNothing(await res.text()));
  }
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await res.blob());
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}
