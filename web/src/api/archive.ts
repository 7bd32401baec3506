import { answerData, answerError, sessionHeaders, type Schemas } from './client';

/** Where an import is: its archive going up (bytes), or its records being applied (records). */
export type ImportStage = { stage: 'sending' | 'applying'; done: number; total: number };

/** The events of a text/event-stream answer read so far (whole frames only), in order. */
function eventsIn(text: string): Array<{ event: string; data: unknown }> {
  const frames = text.split('\n\n');
  frames.pop(); // the last piece is a frame still arriving, or empty
  return frames.flatMap((frame) => {
    const event = /^event: (.+)$/m.exec(frame)?.[1];
    const data = /^data: (.+)$/m.exec(frame)?.[1];
    if (!event || data === undefined) return [];
    try {
      return [{ event, data: JSON.parse(data) as unknown }];
    } catch {
      return [];
    }
  });
}

/**
 * Sends an archive to POST /api/v1/import (a dry run, or the import itself), telling its progress:
 * the upload's bytes, then, once the server has checked the archive, the records it has applied
 * (the route's server-sent events). XMLHttpRequest rather than fetch, for the upload's progress;
 * the session cookie goes by itself, its binding beside it.
 */
export function sendArchive(file: File, options: { dryRun: boolean; passphrase: string }, onProgress: (progress: ImportStage) => void): Promise<Schemas['ImportReport']> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v1/import${options.dryRun ? '?dryRun=true' : ''}`);
    xhr.setRequestHeader('accept', 'text/event-stream');
    for (const [name, value] of Object.entries(sessionHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress({ stage: 'sending', done: event.loaded, total: event.lengthComputable ? event.total : file.size });
    const streamed = () => xhr.status === 200 && (xhr.getResponseHeader('content-type') ?? '').startsWith('text/event-stream');
    xhr.onprogress = () => {
      if (!streamed()) return;
      const last = eventsIn(xhr.responseText).filter((e) => e.event === 'progress').at(-1);
      if (last) onProgress({ stage: 'applying', ...(last.data as { done: number; total: number }) });
    };
    xhr.onload = () => {
      try {
        if (!streamed()) return resolve(answerData<Schemas['ImportReport']>(xhr.status, xhr.statusText, xhr.responseText));
        // A stream ends with the report (done), or with the error that stopped the import midway.
        const end = eventsIn(xhr.responseText).at(-1);
        if (end?.event === 'done') return resolve(end.data as Schemas['ImportReport']);
        const failure = end?.event === 'error' ? (end.data as { error: string; message: string }) : { error: 'INTERNAL_ERROR', message: 'The import ended without its report' };
        reject(answerError(failure.error === 'INTERNAL_ERROR' ? 500 : 400, xhr.statusText, JSON.stringify(failure)));
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
