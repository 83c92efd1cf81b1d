/*
 * The post action bar's icons, drawn here as simple 24×24 strokes (no icon font or package for seven
 * glyphs). Decorative: each button carries its name in aria-label.
 */

const PATHS = {
  reply: 'M10 7 4 12l6 5M4 12h10a6 6 0 0 1 6 6v1',
  boost: 'M7 7h10l-3-3M17 17H7l3 3M4 13V9a2 2 0 0 1 2-2M20 11v4a2 2 0 0 1-2 2',
  quote: 'M7 10h3v4c0 2-1 3-3 3M14 10h3v4c0 2-1 3-3 3M7 10V7M14 10V7',
  favourite: 'm12 3 2.7 5.6 6.1.9-4.4 4.3 1 6.1L12 17l-5.4 2.9 1-6.1-4.4-4.3 6.1-.9Z',
  bookmark: 'M6 3h12v18l-6-4-6 4Z',
  share: 'M12 3v12M7 8l5-5 5 5M5 13v6a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-6',
  thread: 'M4 5h16M4 12h10M4 19h13',
  more: 'M5 12h.01M12 12h.01M19 12h.01',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, filled = false }: { name: IconName; filled?: boolean }) {
  return (
    <svg
      className="icon"
      viewBox="0 0 24 24"
      width="18"
      height="18"
      aria-hidden="true"
      focusable="false"
      fill={filled ? 'currentColor' : 'none'}
      stroke="currentColor"
      strokeWidth={name === 'more' ? 3 : 1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
