import { useEffect, useState, type KeyboardEvent, type TextareaHTMLAttributes } from 'react';
import { useSocialClient, type SocialAccount } from '../../../stores/social-client.ts';

interface Suggestion {
  /** What replaces the word being typed (with its @ or #). */
  insert: string;
  label: string;
  detail: string;
}

/** The @handle or #tag being typed just before the caret, and where it starts; null when there is none. */
export function wordAtCaret(text: string, caret: number): { start: number; word: string } | null {
  const match = /(^|[\s(])([@#][\p{L}\p{N}_.@-]+)$/u.exec(text.slice(0, caret));
  if (!match) return null;
  const word = match[2];
  // "@a" is enough to look people up; tags need two characters to be worth a search.
  if (word.length < (word.startsWith('#') ? 3 : 2)) return null;
  return { start: caret - word.length, word };
}

/**
 * The compose text area with mention and hashtag completion, as Mastodon's web client has it: typing @al
 * or #sai offers matching accounts (the server's account search) or hashtags; arrows choose, Enter or Tab
 * takes one, Escape closes the list.
 */
export function AutocompleteTextarea({
  value,
  onValueChange,
  ...props
}: { value: string; onValueChange: (value: string) => void } & Omit<
  TextareaHTMLAttributes<HTMLTextAreaElement>,
  'value' | 'onChange'
>) {
  const { request } = useSocialClient();
  const [caret, setCaret] = useState(0);
  const [suggestions, setSuggestions] = useState<Suggestion[]>([]);
  const [active, setActive] = useState(0);
  const current = wordAtCaret(value, caret);
  const query = current?.word ?? null;
  useEffect(() => {
    if (!query) return setSuggestions([]);
    let cancelled = false;
    // A short pause, so a search goes out when typing stops rather than for every key.
    const timer = setTimeout(() => {
      const found = query.startsWith('@')
        ? request<SocialAccount[]>(
            `/api/v1/accounts/search?q=${encodeURIComponent(query.slice(1))}&limit=5&resolve=false`,
          ).then((accounts) =>
            accounts.map((a) => ({ insert: `@${a.acct}`, label: a.display_name || a.username, detail: `@${a.acct}` })),
          )
        : request<{ hashtags: { name: string }[] }>(
            `/api/v2/search?q=${encodeURIComponent(query)}&type=hashtags&limit=5`,
          ).then((r) => r.hashtags.map((h) => ({ insert: `#${h.name}`, label: `#${h.name}`, detail: '' })));
      found
        .then((list) => {
          if (cancelled) return;
          setSuggestions(list);
          setActive(0);
        })
        .catch(() => !cancelled && setSuggestions([]));
    }, 150);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [query, request]);
  const open = suggestions.length > 0 && current !== null;
  const take = (s: Suggestion) => {
    if (!current) return;
    const next = `${value.slice(0, current.start)}${s.insert} ${value.slice(caret)}`;
    onValueChange(next);
    setCaret(current.start + s.insert.length + 1);
    setSuggestions([]);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!open) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((active + (e.key === 'ArrowDown' ? 1 : suggestions.length - 1)) % suggestions.length);
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      take(suggestions[active]);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      setSuggestions([]);
    }
  };
  const listId = `${props.id ?? 'compose'}-suggestions`;
  return (
    <span className="autocomplete">
      <textarea
        {...props}
        value={value}
        // A textbox that offers suggestions (ARIA allows no combobox role on a textarea).
        aria-autocomplete="list"
        aria-controls={open ? listId : undefined}
        aria-activedescendant={open ? `${listId}-${active}` : undefined}
        onChange={(e) => {
          onValueChange(e.target.value);
          setCaret(e.target.selectionStart);
        }}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
        onKeyDown={onKeyDown}
      />
      {open && (
        <ul id={listId} role="listbox" aria-label="Suggestions" className="suggestions">
          {suggestions.map((s, i) => (
            <li
              key={s.insert}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => {
                // Keeps the focus in the text area.
                e.preventDefault();
                take(s);
              }}
            >
              <strong>{s.label}</strong> {s.detail && <span className="muted">{s.detail}</span>}
            </li>
          ))}
        </ul>
      )}
    </span>
  );
}
