import { create } from 'zustand';
import { desktopBridge } from '../desktop-bridge.ts';
import { desktopNotice, type StreamedNotification } from './desktop-notice.ts';
import { keepStreamOpen, streamUrl } from './stream-socket.ts';
import { MastodonError, type SocialClientState } from './social-client-state.ts';
import { composeActions } from './social-compose.ts';
import { beginSignIn, finishSignIn, loadToken, rememberedServer, saveToken, serverOrigin } from './social-auth.ts';
import type { GroupedResults, SocialAccount, SocialStatus, StatusAction } from './social-types.ts';

/*
 * The social client signs in like any third-party Mastodon app (OAuth 2.0 with PKCE) and then speaks only
 * the Mastodon API and its streaming API, so it works against this Homeport or any other server. Its token
 * is kept per server (social-auth.ts).
 */

export type { SocialAccount, SocialMedia, SocialPoll, SocialStatus } from './social-types.ts';

/** The flag each action sets on a status, and the counter it moves (bookmarks, mutes and pins have none). */
const ACTIONS: Record<
  StatusAction,
  {
    flag: 'favourited' | 'reblogged' | 'bookmarked' | 'muted' | 'pinned';
    count: 'favourites_count' | 'reblogs_count' | null;
  }
> = {
  favourite: { flag: 'favourited', count: 'favourites_count' },
  reblog: { flag: 'reblogged', count: 'reblogs_count' },
  bookmark: { flag: 'bookmarked', count: null },
  mute: { flag: 'muted', count: null },
  pin: { flag: 'pinned', count: null },
};

export const useSocialClient = create<SocialClientState>((set, get) => ({
  server: rememberedServer(),
  token: null,
  streamingUrl: null,
  me: null,
  home: [],
  incoming: [],
  maxCharacters: 500,
  error: null,
  live: false,
  notifications: [],
  unread: 0,
  overrides: {},

  async signIn(server = location.origin) {
    set({ error: null });
    try {
      const returned = await beginSignIn(serverOrigin(server));
      // The desktop app's sign-in window hands the answer back here instead of reloading the page.
      if (returned) await get().completeSignIn(returned);
    } catch (err) {
      set({ error: (err as Error).message });
    }
  },

  async completeSignIn(query) {
    try {
      const signedIn = await finishSignIn(query);
      if (!signedIn) return false;
      set({ server: signedIn.server, token: signedIn.token });
      await get().restore();
    } catch (err) {
      set({ error: (err as Error).message });
    }
    return true;
  },

  async restore() {
    const server = get().server;
    const token = get().token ?? (await loadToken(server));
    if (!token) return;
    set({ token });
    try {
      const me = await get().request<SocialAccount>('/api/v1/accounts/verify_credentials');
      const instance = await get().request<{
        configuration?: { statuses?: { max_characters?: number }; urls?: { streaming?: string } };
      }>('/api/v2/instance');
      set({
        me,
        maxCharacters: instance.configuration?.statuses?.max_characters ?? 500,
        streamingUrl: instance.configuration?.urls?.streaming ?? null,
        error: null,
      });
      await get().loadHome();
      await get().refreshUnread();
    } catch (err) {
      if ((err as MastodonError).status === 401) get().signOut();
      else set({ error: (err as Error).message });
    }
  },

  signOut() {
    void saveToken(get().server, null);
    set({ server: location.origin, token: null, me: null, home: [], incoming: [], streamingUrl: null });
  },

  async request<T>(path: string, init: { method?: string; body?: unknown } = {}) {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = get().token;
    if (token) headers.authorization = `Bearer ${token}`;
    // Files go as multipart (the browser sets its boundary); everything else as JSON.
    const multipart = init.body instanceof FormData;
    if (init.body !== undefined && !multipart) headers['content-type'] = 'application/json';
    const payload =
      init.body === undefined ? undefined : multipart ? (init.body as FormData) : JSON.stringify(init.body);
    const res = await fetch(`${get().server}${path}`, { method: init.method ?? 'GET', headers, body: payload });
    const body = (await res.json().catch(() => ({}))) as T & { error?: string };
    if (!res.ok) throw new MastodonError(res.status, body.error ?? `The server answered ${res.status}`);
    return body;
  },

  async page<T>(path: string) {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = get().token;
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${get().server}${path}`, { headers });
    const body = (await res.json().catch(() => ({}))) as T[] & { error?: string };
    if (!res.ok) throw new MastodonError(res.status, body.error ?? `The server answered ${res.status}`);
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
    return { items: body, next: next ? next.replace(get().server, '') : null };
  },

  homeOlder: null,
  homeReadUpTo: null,

  async loadHome() {
    const [{ items: home, next }, markers] = await Promise.all([
      get().page<SocialStatus>('/api/v1/timelines/home?limit=40'),
      get()
        .request<{ home?: { last_read_id: string } }>('/api/v1/markers?timeline[]=home')
        .catch(() => ({}) as { home?: { last_read_id: string } }),
    ]);
    set({ home, homeOlder: next, incoming: [], error: null, homeReadUpTo: markers.home?.last_read_id ?? null });
    await get().markHomeRead();
  },

  async loadOlderHome() {
    const path = get().homeOlder;
    if (!path) return;
    const { items, next } = await get().page<SocialStatus>(path);
    const seen = new Set(get().home.map((s) => s.id));
    set({ home: [...get().home, ...items.filter((s) => !seen.has(s.id))], homeOlder: next });
  },

  showIncoming() {
    const { incoming, home } = get();
    const seen = new Set(home.map((s) => s.id));
    set({ home: [...incoming.filter((s) => !seen.has(s.id)), ...home], incoming: [] });
    void get().markHomeRead();
  },

  async catchUp() {
    const newest = [...get().incoming, ...get().home][0]?.id;
    if (!newest) return;
    const missed = await get().request<SocialStatus[]>(
      `/api/v1/timelines/home?min_id=${encodeURIComponent(newest)}&limit=40`,
    );
    const known = new Set([...get().incoming, ...get().home].map((s) => s.id));
    // min_id pages come oldest first within the page; newest goes on top.
    const fresh = missed.filter((s) => !known.has(s.id)).sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    if (fresh.length) set({ incoming: [...fresh, ...get().incoming] });
  },

  async markHomeRead() {
    const top = get().home[0]?.id;
    if (!top) return;
    // Read on every device that keeps markers (Mastodon's web client, Phanpy, Elk…).
    await get()
      .request('/api/v1/markers', { method: 'POST', body: { home: { last_read_id: top } } })
      .catch(() => undefined);
  },

  ...composeActions(set, get),

  toggleFavourite(status) {
    return get().toggle(status, 'favourite');
  },

  async toggle(status, action) {
    // The post as last seen anywhere in the client (another list may have changed it since this one loaded).
    const target = { ...(status.reblog ?? status), ...get().overrides[(status.reblog ?? status).id] };
    const flag = ACTIONS[action].flag;
    const count = ACTIONS[action].count;
    const on = !target[flag];
    const patch = (list: SocialStatus[], value: Partial<SocialStatus>) =>
      list.map((s) =>
        s.id === status.id ? (s.reblog ? { ...s, reblog: { ...s.reblog, ...value } } : { ...s, ...value }) : s,
      );
    const shownAs = (flagValue: boolean | undefined, countValue: number | undefined): Partial<SocialStatus> => ({
      [flag]: flagValue,
      ...(count ? { [count]: countValue } : {}),
    });
    const remember = (value: Partial<SocialStatus>) =>
      set({ overrides: { ...get().overrides, [target.id]: { ...get().overrides[target.id], ...value } } });
    // Optimistic: shown at once (here and in every other list), rolled back if the server refuses.
    const optimistic = shownAs(on, count ? target[count] + (on ? 1 : -1) : undefined);
    set({ home: patch(get().home, optimistic) });
    remember(optimistic);
    try {
      const answer = await get().request<SocialStatus>(`/api/v1/statuses/${target.id}/${on ? action : `un${action}`}`, {
        method: 'POST',
      });
      // A boost answers with the boost itself; the flags are those of the boosted post.
      const updated = answer.reblog && action === 'reblog' ? answer.reblog : answer;
      const confirmed = shownAs(updated[flag], count ? updated[count] : undefined);
      set({ home: patch(get().home, confirmed) });
      remember(confirmed);
    } catch (err) {
      const previous = shownAs(target[flag], count ? target[count] : undefined);
      set({ home: patch(get().home, previous), error: (err as Error).message });
      remember(previous);
    }
  },

  async loadNotifications(types) {
    const only = (types ?? []).map((t) => `&types[]=${encodeURIComponent(t)}`).join('');
    const results = await get().request<GroupedResults>(`/api/v2/notifications?limit=40${only}`);
    const accounts = new Map(results.accounts.map((a) => [a.id, a]));
    const statuses = new Map(results.statuses.map((st) => [st.id, st]));
    set({
      notifications: results.notification_groups.map((g) => ({
        key: g.group_key,
        type: g.type,
        count: g.notifications_count,
        accounts: g.sample_account_ids.flatMap((id) => accounts.get(id) ?? []),
        status: g.status_id ? (statuses.get(g.status_id) ?? null) : null,
        latest: g.most_recent_notification_id,
        at: g.latest_page_notification_at ?? null,
      })),
    });
  },

  async markNotificationsRead() {
    const newest = get()
      .notifications.map((n) => n.latest)
      .sort((a, b) => (BigInt(a) > BigInt(b) ? -1 : 1))[0];
    if (!newest) return;
    await get().request('/api/v1/markers', { method: 'POST', body: { notifications: { last_read_id: newest } } });
    set({ unread: 0 });
  },

  async refreshUnread() {
    const { count } = await get().request<{ count: number }>('/api/v2/notifications/unread_count');
    set({ unread: count });
  },

  connectStream() {
    const { server, token, streamingUrl } = get();
    if (!token) return () => {};
    // The address the server reports (Mastodon may stream from another host), else its own.
    return keepStreamOpen(streamUrl(streamingUrl ?? server, { stream: 'user' }), token, {
      onOpen: (reopened) => {
        set({ live: true });
        // After a drop, what was posted meanwhile is fetched (the stream does not replay it).
        if (reopened)
          void get()
            .catchUp()
            .catch(() => undefined);
      },
      onClose: () => set({ live: false }),
      onFrame: (frame) => {
        if (frame.event === 'update' && frame.payload) {
          const status = JSON.parse(frame.payload) as SocialStatus;
          if (get().home.some((s) => s.id === status.id) || get().incoming.some((s) => s.id === status.id)) return;
          set({ incoming: [status, ...get().incoming] });
        } else if (frame.event === 'notification') {
          void get().refreshUnread();
          void get().loadNotifications();
          // In the desktop app, a notification arriving while the window is in the background shows on the desktop.
          const bridge = desktopBridge();
          if (bridge?.notify && document.hidden && frame.payload)
            void bridge
              .notify(...desktopNotice(JSON.parse(frame.payload) as StreamedNotification))
              .catch(() => undefined);
        } else if (frame.event === 'filters_changed') {
          // Filters apply on the server: the timeline is read again to carry the new matches.
          void get().loadHome();
        } else if (frame.event === 'delete' && frame.payload) {
          const id = frame.payload;
          set({
            home: get().home.filter((s) => s.id !== id && s.reblog?.id !== id),
            incoming: get().incoming.filter((s) => s.id !== id),
          });
        }
      },
    });
  },
}));
