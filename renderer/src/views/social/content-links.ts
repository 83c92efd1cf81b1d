import type { MouseEvent } from 'react';
import { useSocialClient } from '../../stores/social-client.ts';

interface Mentioned {
  mentions?: { id: string; url: string }[];
}

/**
 * One click handler for everything under the client: hashtag and mention links in the HTML the server wrote
 * (posts, bios, profile fields) open the hashtag's timeline or the account's profile here instead of leaving
 * the page. A click with a modifier key keeps the browser's own behaviour (a new tab).
 */
export function useContentLinks(onTag: (name: string) => void, onProfile: (id: string) => void) {
  const { request } = useSocialClient();
  /** The account a mention link names: from its post's mentions, else by asking the server for the address. */
  const mentioned = async (link: HTMLAnchorElement): Promise<string | null> => {
    const statusId = link.closest('[data-status-id]')?.getAttribute('data-status-id');
    if (statusId) {
      const status = await request<Mentioned>(`/api/v1/statuses/${statusId}`);
      const found = status.mentions?.find((m) => m.url === link.href);
      if (found) return found.id;
    }
    const results = await request<{ accounts: { id: string }[] }>(
      `/api/v2/search?type=accounts&resolve=true&limit=1&q=${encodeURIComponent(link.href)}`,
    );
    return results.accounts[0]?.id ?? null;
  };
  return (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const link = e.target instanceof Element ? e.target.closest('a') : null;
    if (!link) return;
    // Mastodon marks hashtags `class="mention hashtag" rel="tag"`: the hashtag test comes first.
    if (link.classList.contains('hashtag') || link.relList.contains('tag')) {
      e.preventDefault();
      onTag((link.textContent ?? '').trim().replace(/^#/, ''));
    } else if (link.classList.contains('mention')) {
      e.preventDefault();
      // An account this server cannot find opens on its own server, as the link would have.
      void mentioned(link)
        .catch(() => null)
        .then((id) => (id ? onProfile(id) : window.open(link.href, '_blank', 'noopener')));
    }
  };
}
