import { useEffect, useMemo, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** The console's address without the query, updated on navigation and on the back button. */
export function usePath(): string {
  const [path, setPath] = useState(() => window.location.pathname);
  useEffect(() => {
    const update = () => setPath(window.location.pathname);
    window.addEventListener('popstate', update);
    window.addEventListener('hearth:navigate', update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('hearth:navigate', update);
    };
  }, []);
  return path;
}

export function navigate(to: string): void {
  if (to === window.location.pathname + window.location.search) return;
  window.history.pushState(null, '', to);
  window.dispatchEvent(new Event('hearth:navigate'));
}

/** A link that changes page without reloading the console (and still opens in a new tab). */
export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={follow} {...rest} />;
}

/** The console's query string, updated like `usePath`: a page that keeps its search in the address reads it here. */
export function useQuery(): URLSearchParams {
  const [search, setSearch] = useState(() => window.location.search);
  useEffect(() => {
    const update = () => setSearch(window.location.search);
    window.addEventListener('popstate', update);
    window.addEventListener('hearth:navigate', update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('hearth:navigate', update);
    };
  }, []);
  return useMemo(() => new URLSearchParams(search), [search]);
}

/** An address of this page with the given query (empty values left out), for links and `navigate`. */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}
