import { useState, type FormEvent } from 'react';
import { navigate } from '../../stores/router.ts';
import { searchPath } from './routes.ts';

/** The search field of the client's navigation: it opens /search?q=…, so a search can be reloaded and shared. */
export function SearchBox({ initial }: { initial: string }) {
  const [q, setQ] = useState(initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (q.trim()) navigate(searchPath(q.trim()));
  };
  return (
    <form className="search-box" role="search" onSubmit={submit}>
      <label>
        People, #hashtags or posts
        <input id="find-people" type="search" value={q} onChange={(e) => setQ(e.target.value)} required />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}
