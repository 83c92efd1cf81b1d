import { create } from 'zustand';

export const SECTIONS = [
  { id: 'eventlog', label: 'Event log' },
  { id: 'subscriptions', label: 'Subscriptions' },
  { id: 'social', label: 'Social' },
  { id: 'server', label: 'Server' },
] as const;
export type SectionId = (typeof SECTIONS)[number]['id'];

/** Paths under /ui/ are the app's own routes; the HTTP server answers them with index.html. */
function parse(pathname: string): { section: SectionId; rest: string[] } {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const section = SECTIONS.find((s) => s.id === parts[1])?.id ?? 'eventlog';
  return { section, rest: parts.slice(2) };
}

interface RouterState {
  section: SectionId;
  rest: string[];
  navigate(path: string): void;
}

export const useRouter = create<RouterState>((set) => {
  if (typeof window !== 'undefined') {
    window.addEventListener('popstate', () => set(parse(window.location.pathname)));
  }
  return {
    ...parse(typeof window === 'undefined' ? '/' : window.location.pathname),
    navigate(path) {
      window.history.pushState(null, '', path);
      set(parse(path));
    },
  };
});
