import { useEffect, useState } from 'react';
import { Dialog } from '../../components/ui.tsx';

/** The client's keyboard shortcuts (as Elk and Mastodon's web client have them). */
export const SHORTCUTS: [string, string][] = [
  ['j', 'next post'],
  ['k', 'previous post'],
  ['f', 'favourite the post in focus'],
  ['b', 'boost the post in focus'],
  ['s', 'bookmark the post in focus'],
  ['r', 'reply to the post in focus'],
  ['o', 'open the thread of the post in focus'],
  ['n', 'write a new post'],
  ['/', 'search'],
  ['?', 'show these shortcuts'],
];

/** Whether the key went to something that takes text (shortcuts leave typing alone). */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

/** Moves focus to the next or previous post on the page (the first one when none has focus). */
function move(step: 1 | -1): void {
  const posts = [...document.querySelectorAll<HTMLElement>('article.status')];
  if (posts.length === 0) return;
  const current = posts.findIndex((p) => p.contains(document.activeElement));
  const next = current === -1 ? 0 : Math.min(Math.max(current + step, 0), posts.length - 1);
  posts[next].focus();
  posts[next].scrollIntoView({ block: 'nearest' });
}

/** Presses an action button of the post in focus. */
function act(action: string): void {
  const post = (document.activeElement as HTMLElement | null)?.closest('article.status');
  post?.querySelector<HTMLButtonElement>(`button[data-action="${action}"]`)?.click();
}

/** Listens for the shortcuts while the client is shown; returns whether the help is open and how to close it. */
export function useShortcuts(openCompose: () => void): { help: boolean; closeHelp: () => void } {
  const [help, setHelp] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      const handlers: Record<string, () => void> = {
        j: () => move(1),
        k: () => move(-1),
        f: () => act('favourite'),
        b: () => act('boost'),
        s: () => act('bookmark'),
        r: () => {
          act('reply');
          openCompose();
        },
        o: () => act('thread'),
        n: openCompose,
        '/': () => document.getElementById('find-people')?.focus(),
        '?': () => setHelp(true),
      };
      const handler = handlers[e.key];
      if (!handler) return;
      e.preventDefault();
      handler();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [openCompose]);
  return { help, closeHelp: () => setHelp(false) };
}

export function ShortcutHelp({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} title="Keyboard shortcuts" onClose={onClose}>
      <dl className="facts shortcuts">
        {SHORTCUTS.map(([key, what]) => (
          <div key={key} style={{ display: 'contents' }}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
