import { useEffect, useState, type FormEvent } from 'react';

/**
 * A list's search box: "Search" hands the trimmed words to the page, and "Show all" (there only
 * while a search is shown) empties the box and hands back no words, so the full list returns.
 * The box shows the words searched for, also when they come from the address (a link, the back
 * button).
 */
export function SearchForm({ label, searched, onSearch }: { label: string; searched: string; onSearch: (words: string) => void }) {
  const [query, setQuery] = useState(searched);
  useEffect(() => {
    setQuery(searched);
  }, [searched]);

  const search = (event: FormEvent) => {
    event.preventDefault();
    onSearch(query.trim());
  };

  return (
    <form role="search" className="search-row" onSubmit={search}>
      <label>
        {label}
        <input type="search" value={query} onChange={(event) => setQuery(event.currentTarget.value)} />
      </label>
      <button type="submit">Search</button>
      {searched ? (
        <button
          type="button"
          onClick={() => {
            setQuery('');
            onSearch('');
          }}
        >
          Show all
        </button>
      ) : null}
    </form>
  );
}
