import { create } from 'zustand';

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

interface RouterState extends Route {
  navigate(path: string, options?: { replace?: boolean }): void;
}

const here = () => (typeof window === 'undefined' ? '/' : window.location.pathname + window.location.search);

export const useRouter = create<RouterState>((set) => {
  if (typeof window !== 'undefined') {
    window.addEventListener('popstate', () => set(parseRoute(here())));
  }
  return {
    ...parseRoute(here()),
    navigate(path, options = {}) {
      if (typeof window !== 'undefined') {
        if (options.replace) window.history.replaceState(null, '', path);
        else window.history.pushState(null, '', path);
      }
      set(parseRoute(path));
    },
  };
});
