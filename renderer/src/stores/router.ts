import { navigate as browserNavigate, usePathname, useSearch } from 'wouter/use-browser-location';

/*
 * The address bar is the UI's state of where one is: wouter keeps it (history, Back/Forward, links that
 * open in a new tab on a middle or modified click); these helpers only split and build the app's paths.
 */

export const SECTIONS = [
  { id: 'eventlog', label: 'Event log' },
  { id: 'subscriptions', label: 'Subscriptions' },
  { id: 'social', label: 'Social' },
  { id: 'server', label: 'Server' },
] as const;
export type SectionId = (typeof SECTIONS)[number]['id'];

export interface Route {
  section: SectionId;
  /** Path parts after the section, decoded one by one (so a stream name may contain `/` as %2F). */
  rest: string[];
  query: Record<string, string>;
}

/** Paths under /ui/ are the app's own routes; the HTTP server answers them with index.html. */
export function parseRoute(url: string): Route {
  const [pathname, search = ''] = url.split('?', 2);
  const parts = pathname
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  const section = SECTIONS.find((s) => s.id === parts[1])?.id ?? 'eventlog';
  return { section, rest: parts.slice(2), query: Object.fromEntries(new URLSearchParams(search)) };
}

/** Builds `/ui/<section>/<part>/<part>?k=v`, encoding each part (and dropping empty query values). */
export function routePath(
  section: SectionId,
  parts: (string | number)[] = [],
  query: Record<string, string | number | boolean | undefined | null> = {},
): string {
  const path = ['', 'ui', section, ...parts.map((p) => encodeURIComponent(String(p)))].join('/');
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== null && v !== '' && v !== false) q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export type NavigateFn = (path: string, options?: { replace?: boolean }) => void;

/** History entries the app made itself carry this state, so an in-app Back knows a page of its own is behind. */
export const IN_APP = { homeport: true } as const;

/** Goes to an app path (a new history entry, or in place with `replace`). */
export const navigate: NavigateFn = (path, options) =>
  browserNavigate(path, { replace: options?.replace, state: IN_APP });

/** The browser's Back when the previous entry is one of the app's pages, else `fallback` (a page opened directly). */
export function goBack(fallback: string): void {
  if ((window.history.state as typeof IN_APP | null)?.homeport) window.history.back();
  else navigate(fallback, { replace: true });
}

interface RouterState extends Route {
  navigate: NavigateFn;
}

/** Where the address bar points, split into section, path parts and query; re-renders when it changes. */
export function useRouter(): RouterState;
export function useRouter<T>(select: (state: RouterState) => T): T;
export function useRouter<T>(select?: (state: RouterState) => T): T | RouterState {
  // The raw pathname and query: parts are decoded one by one, so an encoded `/` or `%` in a stream name survives.
  const pathname = usePathname();
  const search = useSearch();
  const state: RouterState = { ...parseRoute(pathname + search), navigate };
  return select ? select(state) : state;
}
