import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { api, errorMessage, unwrap, type Schemas } from '../api/client';

/** What a page loaded: the data once it came, or the error the API gave, and how to load again. */
export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads data for a page, again whenever `deps` change or `reload` is called. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [round, setRound] = useState(0);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => current && setState((previous) => ({ data: previous.data, error, loading: false })),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [round, ...deps]);
  return { ...state, reload };
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** The API's own message for a failed request, announced to screen readers. */
export function ErrorNote({ error, retry }: { error: unknown; retry?: () => void }) {
  if (!error) return null;
  return (
    <div className="error" role="alert">
      <span>{errorMessage(error)}</span>
      {retry ? (
        <button type="button" className="link" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** Shows data once it is there, with its loading and error states. */
export function Show<T>({ loaded, children, what }: { loaded: Loaded<T>; children: (data: T) => ReactNode; what?: string }) {
  if (loaded.data === undefined) {
    return loaded.error ? <ErrorNote error={loaded.error} retry={loaded.reload} /> : <Loading what={what} />;
  }
  return (
    <>
      {loaded.error ? <ErrorNote error={loaded.error} retry={loaded.reload} /> : null}
      {children(loaded.data)}
    </>
  );
}

/**
 * A secret shown once (a new token, the master token): a copy button and a plain warning,
 * since the server keeps only its hash and cannot show it again.
 */
export function OnceSecret({ label, value, onDone }: { label: string; value: string; onDone?: () => void }) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      // Clipboard access can be refused (no https, no permission): the text is selected instead.
      field.current?.select();
    }
  };
  return (
    <div className="secret" role="region" aria-label={label}>
      <label htmlFor={id}>{label}</label>
      <div className="row">
        <input id={id} ref={field} readOnly value={value} className="mono" onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p className="warning">This is the only time it is shown. Copy it now and keep it somewhere safe: Hearth stores only a hash of it and cannot show it again.</p>
      {onDone ? (
        <button type="button" onClick={onDone}>
          I have saved it
        </button>
      ) : null}
    </div>
  );
}

let scopeCatalogue: Promise<Schemas['ScopeInfo'][]> | undefined;

/** The scope catalogue (GET /scopes), asked once per page load. */
export function loadScopes(): Promise<Schemas['ScopeInfo'][]> {
  scopeCatalogue ??= api.GET('/api/v1/scopes').then((answer) => unwrap(answer).data);
  scopeCatalogue.catch(() => (scopeCatalogue = undefined));
  return scopeCatalogue;
}

/** One checkbox per scope, labelled with its name and what it means. */
export function ScopePicker({ value, onChange, legend = 'Scopes' }: { value: string[]; onChange: (scopes: string[]) => void; legend?: string }) {
  const scopes = useLoad(loadScopes);
  const toggle = (name: string, on: boolean) => onChange(on ? [...value, name] : value.filter((scope) => scope !== name));
  return (
    <fieldset className="scopes">
      <legend>{legend}</legend>
      <Show loaded={scopes} what="Loading scopes">
        {(list) =>
          list.map((scope) => (
            <label key={scope.name} className="scope">
              <input type="checkbox" checked={value.includes(scope.name)} onChange={(event) => toggle(scope.name, event.currentTarget.checked)} />
              <span>
                <strong className="mono">{scope.name}</strong>
                <span className="muted"> {scope.description}</span>
              </span>
            </label>
          ))
        }
      </Show>
    </fieldset>
  );
}

/** A date as the owner reads it, with the exact time on hover. */
export function When({ at, empty = 'never' }: { at: string | null | undefined; empty?: string }) {
  if (!at) return <span className="muted">{empty}</span>;
  const date = new Date(at);
  return (
    <time dateTime={at} title={date.toLocaleString()}>
      {relative(date)}
    </time>
  );
}

function relative(date: Date): string {
  const seconds = Math.round((date.getTime() - Date.now()) / 1000);
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const steps: Array<[number, Intl.RelativeTimeFormatUnit]> = [
    [60, 'second'],
    [60, 'minute'],
    [24, 'hour'],
    [30, 'day'],
    [12, 'month'],
  ];
  let value = seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(value) < size) return format.format(value, unit);
    value = Math.round(value / size);
  }
  return format.format(value, 'year');
}

/** A page's heading and its main actions. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1 tabIndex={-1}>{title}</h1>
      {children ? <div className="actions">{children}</div> : null}
    </header>
  );
}
