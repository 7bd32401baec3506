import { answerData, answerError, sessionHeaders, type Schemas } from './client';

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
      try {
        resolve(answerData<Schemas['ImportReport']>(xhr.status, xhr.statusText, xhr.responseText));
      } catch (error) {
        reject(error as Error);
      }
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
  if (!res.ok) throw answerError(res.status, res.statusText, await res.text());
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await res.blob());
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}
