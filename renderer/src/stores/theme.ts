import { create } from 'zustand';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];
const KEY = 'homeport.theme';

function stored(): Theme {
  try {
    const value = localStorage.getItem(KEY);
    return (THEMES as readonly string[]).includes(value ?? '') ? (value as Theme) : 'system';
  } catch {
    return 'system';
  }
}

/** Puts the theme on <html> (the stylesheet's colours follow its color-scheme). */
function apply(theme: Theme): void {
  if (theme === 'system') document.documentElement.removeAttribute('data-theme');
  else document.documentElement.dataset.theme = theme;
}

interface ThemeState {
  theme: Theme;
  setTheme(theme: Theme): void;
}

/** Light, dark, or the system's: chosen in the top bar, kept in this browser (or the desktop app's) storage. */
export const useTheme = create<ThemeState>((set) => {
  const initial = stored();
  apply(initial);
  return {
    theme: initial,
    setTheme(theme) {
      apply(theme);
      try {
        localStorage.setItem(KEY, theme);
      } catch {
        // Storage may be unavailable (private windows); the choice then lasts for this page only.
      }
      set({ theme });
    },
  };
});
