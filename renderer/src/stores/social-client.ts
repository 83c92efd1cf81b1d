import { create } from 'zustand';
import { desktopBridge } from '../desktop-bridge.ts';
import { desktopNotice, type StreamedNotification } from './desktop-notice.ts';
import { beginSignIn, finishSignIn, loadToken, rememberedServer, saveToken, serverOrigin } from './social-auth.ts';

/*
 * The social client signs in like any third-party Mastodon app (OAuth 2.0 with PKCE) and then speaks only
 * the Mastodon API and its streaming API, so it works against this Homeport or any other server. Its token
 * is kept per server in this origin's storage.
 */


export interface SocialAccount {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  avatar: string;
  /** The profile's wide header image (Mastodon gives a placeholder when none was set). */
  header?: string;
  avatar_description?: string;
  header_description?: string;
  url: string;
  note?: string;
  fields?: { name: string; value: string; verified_at?: string | null }[];
  followers_count?: number;
  following_count?: number;
  statuses_count?: number;
}

export interface SocialStatus {
  id: string;
  uri: string;
  url: string | null;
  created_at: string;
  content: string;
  spoiler_text: string;
  edited_at?: string | null;
  /** Set only by this client when the post was deleted here (lists drop it). */
  deleted?: boolean;
  visibility: string;
  account: SocialAccount;
  reblog: SocialStatus | null;
  favourited?: boolean;
  reblogged?: boolean;
  bookmarked?: boolean;
  /** Which of the user's filters match, with the action each asks for. */
  filtered?: { filter: { title: string; filter_action: 'warn' | 'hide' | 'blur' }; keyword_matches: string[] | null }[];
  favourites_count: number;
  reblogs_count: number;
  replies_count: number;
  sensitive?: boolean;
  media_attachments?: SocialMedia[];
  poll?: SocialPoll | null;
}

export type StatusAction = 'favourite' | 'reblog' | 'bookmark';

/** The flag each action sets on a status, and the counter it moves (bookmarks have none). */
const ACTIONS: Record<StatusAction, { flag: 'favourited' | 'reblogged' | 'bookmarked'; count: 'favourites_count' | 'reblogs_count' | null }> = {
  favourite: { flag: 'favourited', count: 'favourites_count' },
  reblog: { flag: 'reblogged', count: 'reblogs_count' },
  bookmark: { flag: 'bookmarked', count: null },
};

export interface SocialPoll {
  id: string;
  expired: boolean;
  expires_at: string | null;
  multiple: boolean;
  votes_count: number;
  voted?: boolean;
  own_votes?: number[];
  options: { title: string; votes_count: number | null }[];
}

export interface SocialMedia {
  id: string;
  type: string;
  url: string | null;
  preview_url: string | null;
  description: string | null;
}

/** One group of the grouped notifications API, with its accounts and status resolved. */
export interface NotificationGroupView {
  key: string;
  type: string;
  count: number;
  accounts: SocialAccount[];
  status: SocialStatus | null;
  latest: string;
}

interface GroupedResults {
  accounts: SocialAccount[];
  statuses: SocialStatus[];
  notification_groups: { group_key: string; type: string; notifications_count: number; sample_account_ids: string[]; status_id?: string | null; latest_page_notification_at?: string; most_recent_notification_id: string }[];
}

export class MastodonError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface ComposeDraft {
  /** The id of the post being edited; null for a new post (delete and redraft). */
  editing: string | null;
  text: string;
  spoilerText: string;
  visibility: string;
}

interface SocialClientState {
  /** The server the client speaks to (an origin): this Homeport, or any Mastodon-compatible server. */
  server: string;
  token: string | null;
  /** Where the server streams from, as its instance document says (null: its own address). */
  streamingUrl: string | null;
  me: SocialAccount | null;
  home: SocialStatus[];
  /** Statuses that arrived live and wait behind the "new posts" button (reading position is kept). */
  incoming: SocialStatus[];
  maxCharacters: number;
  error: string | null;
  live: boolean;
  notifications: NotificationGroupView[];
  /** Notifications newer than the reading position (the notifications marker). */
  unread: number;
  /** Starts the OAuth flow against a server (this one by default): registers the app, then leaves for its sign-in page. */
  signIn(server?: string): Promise<void>;
  /** Finishes the flow on return: trades the code for a token (PKCE). True when a code was handled. */
  completeSignIn(query: URLSearchParams): Promise<boolean>;
  restore(): Promise<void>;
  signOut(): void;
  /** A Mastodon API call: `body` goes as JSON, or as multipart when it is a FormData (files). */
  request<T>(path: string, init?: { method?: string; body?: unknown }): Promise<T>;
  /** One page of a list and the path of the next one (from the Link header), or null at the end. */
  page<T>(path: string): Promise<{ items: T[]; next: string | null }>;
  /** The latest flags and counters of statuses the user acted on, by status id (every list shows them). */
  overrides: Record<string, Partial<SocialStatus>>;
  loadHome(): Promise<void>;
  showIncoming(): void;
  /** Posts, or saves the edit when `draft.editing` names a post. */
  post(input: { status: string; spoilerText?: string; visibility?: string; mediaIds?: string[]; poll?: { options: string[]; expiresIn: number } }): Promise<void>;
  /** What the compose form should hold: a post being edited, or a deleted post's text to post again. */
  draft: ComposeDraft | null;
  /** Loads one's post as written (its source) into the compose form to edit it. */
  startEdit(status: SocialStatus): Promise<void>;
  /** Deletes one's post; `redraft` puts its text back in the compose form. */
  deleteStatus(status: SocialStatus, redraft: boolean): Promise<void>;
  clearDraft(): void;
  /** Votes in a poll and puts its new counts in whatever list shows it. */
  vote(poll: SocialPoll, choices: number[]): Promise<SocialPoll>;
  /** Uploads a file (progress 0..1 as it goes) and resolves once the server has processed it. */
  upload(file: File, onProgress: (fraction: number) => void): Promise<SocialMedia>;
  toggleFavourite(status: SocialStatus): Promise<void>;
  /** Favourite, boost or bookmark (or undo it), shown at once and rolled back if the server refuses. */
  toggle(status: SocialStatus, action: StatusAction): Promise<void>;
  /** The grouped notifications, of the given types only when `types` is given. */
  loadNotifications(types?: readonly string[]): Promise<void>;
  /** Moves the notifications marker to the newest one shown (read on every device). */
  markNotificationsRead(): Promise<void>;
  refreshUnread(): Promise<void>;
  connectStream(): () => void;
}

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
      const instance = await get().request<{ configuration?: { statuses?: { max_characters?: number }; urls?: { streaming?: string } } }>('/api/v2/instance');
      set({ me, maxCharacters: instance.configuration?.statuses?.max_characters ?? 500, streamingUrl: instance.configuration?.urls?.streaming ?? null, error: null });
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
    const payload = init.body === undefined ? undefined : multipart ? (init.body as FormData) : JSON.stringify(init.body);
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

  async loadHome() {
    const home = await get().request<SocialStatus[]>('/api/v1/timelines/home?limit=40');
    set({ home, incoming: [], error: null });
  },

  showIncoming() {
    const { incoming, home } = get();
    const seen = new Set(home.map((s) => s.id));
    set({ home: [...incoming.filter((s) => !seen.has(s.id)), ...home], incoming: [] });
  },

  draft: null,

  async startEdit(status) {
    const source = await get().request<{ id: string; text: string; spoiler_text: string }>(`/api/v1/statuses/${status.id}/source`);
    set({ draft: { editing: status.id, text: source.text, spoilerText: source.spoiler_text, visibility: status.visibility} });
  },

  async deleteStatus(status, redraft) {
    const deleted = await get().request<SocialStatus & { text?: string }>(`/api/v1/statuses/${status.id}`, { method: 'DELETE' });
    const gone = (list: SocialStatus[]) => list.filter((s) => s.id !== status.id && s.reblog?.id !== status.id);
    set({ home: gone(get().home), incoming: gone(get().incoming), overrides: { ...get().overrides, [status.id]: { deleted: true } } });
    if (redraft) set({ draft: { editing: null, text: deleted.text ?? '', spoilerText: deleted.spoiler_text ?? '', visibility: deleted.visibility ?? 'public'} });
  },

  clearDraft() {
    set({ draft: null });
  },

  async post(input) {
    const editing = get().draft?.editing ?? null;
    if (editing) {
      const edited = await get().request<SocialStatus>(`/api/v1/statuses/${editing}`, { method: 'PUT', body: { status: input.status, spoiler_text: input.spoilerText ?? '' } });
      const replace = (list: SocialStatus[]) => list.map((s) => (s.id === edited.id ? { ...s, ...edited } : s.reblog?.id === edited.id ? { ...s, reblog: { ...s.reblog, ...edited } } : s));
      const { content, spoiler_text, edited_at } = edited;
      set({ home: replace(get().home), overrides: { ...get().overrides, [edited.id]: { ...get().overrides[edited.id], content, spoiler_text, edited_at } }, draft: null });
      return;
    }
    set({ draft: null });
    const status = await get().request<SocialStatus>('/api/v1/statuses', {
      method: 'POST',
      body: {
        status: input.status,
        spoiler_text: input.spoilerText || undefined,
        visibility: input.visibility ?? 'public',
        media_ids: input.mediaIds?.length ? input.mediaIds : undefined,
        poll: input.poll ? { options: input.poll.options, expires_in: input.poll.expiresIn } : undefined,
      },
    });
    // One's own post goes straight to the top; the stream's copy of it is then skipped.
    set({ home: [status, ...get().home.filter((s) => s.id !== status.id)], incoming: get().incoming.filter((s) => s.id !== status.id) });
  },

  upload(file, onProgress) {
    const { server, token } = get();
    return new Promise<SocialMedia>((resolve, reject) => {
      // XMLHttpRequest, not fetch: only it reports upload progress.
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `${server}/api/v2/media`);
      if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
      xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
      xhr.onerror = () => reject(new MastodonError(0, 'The upload failed'));
      xhr.onload = async () => {
        let media: SocialMedia & { error?: string };
        try {
          media = JSON.parse(xhr.responseText) as SocialMedia & { error?: string };
        } catch {
          reject(new MastodonError(xhr.status, `The upload was answered ${xhr.status}`));
          return;
        }
        if (xhr.status >= 400) {
          reject(new MastodonError(xhr.status, media.error ?? `The upload was answered ${xhr.status}`));
          return;
        }
        // 202: still being processed; ask until it is.
        for (let i = 0; media.url === null && i < 120; i++) {
          await new Promise((r) => setTimeout(r, 500));
          media = await get().request<SocialMedia>(`/api/v1/media/${media.id}`);
        }
        onProgress(1);
        resolve(media);
      };
      const form = new FormData();
      form.append('file', file);
      xhr.send(form);
    });
  },

  async vote(poll, choices) {
    const updated = await get().request<SocialPoll>(`/api/v1/polls/${poll.id}/votes`, { method: 'POST', body: { choices } });
    const patch = (list: SocialStatus[]) =>
      list.map((s) => (s.poll?.id === poll.id ? { ...s, poll: updated } : s.reblog?.poll?.id === poll.id ? { ...s, reblog: { ...s.reblog, poll: updated } } : s));
    set({ home: patch(get().home) });
    return updated;
  },

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
      list.map((s) => (s.id === status.id ? (s.reblog ? { ...s, reblog: { ...s.reblog, ...value } } : { ...s, ...value }) : s));
    const shownAs = (flagValue: boolean | undefined, countValue: number | undefined): Partial<SocialStatus> => ({ [flag]: flagValue, ...(count ? { [count]: countValue } : {}) });
    const remember = (value: Partial<SocialStatus>) => set({ overrides: { ...get().overrides, [target.id]: { ...get().overrides[target.id], ...value } } });
    // Optimistic: shown at once (here and in every other list), rolled back if the server refuses.
    const optimistic = shownAs(on, count ? target[count] + (on ? 1 : -1) : undefined);
    set({ home: patch(get().home, optimistic) });
    remember(optimistic);
    try {
      const answer = await get().request<SocialStatus>(`/api/v1/statuses/${target.id}/${on ? action : `un${action}`}`, { method: 'POST' });
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
      })),
    });
  },

  async markNotificationsRead() {
    const newest = get().notifications.map((n) => n.latest).sort((a, b) => (BigInt(a) > BigInt(b) ? -1 : 1))[0];
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
    const base = (streamingUrl ?? server).replace(/^http/, 'ws').replace(/\/$/, '');
    let closed = false;
    let socket: WebSocket | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    const open = (delay: number) => {
      // The token travels as the subprotocol, as masto.js sends it (browsers cannot set headers on a WebSocket).
      socket = new WebSocket(`${base}/api/v1/streaming?stream=user`, [token]);
      socket.onopen = () => set({ live: true });
      socket.onmessage = (e) => {
        const frame = JSON.parse(String(e.data)) as { event?: string; payload?: string };
        if (frame.event === 'update' && frame.payload) {
          const status = JSON.parse(frame.payload) as SocialStatus;
          if (get().home.some((s) => s.id === status.id) || get().incoming.some((s) => s.id === status.id)) return;
          set({ incoming: [status, ...get().incoming] });
        } else if (frame.event === 'notification') {
          void get().refreshUnread();
          void get().loadNotifications();
          // In the desktop app, a notification arriving while the window is in the background shows on the desktop.
          const bridge = desktopBridge();
          if (bridge?.notify && document.hidden && frame.payload) void bridge.notify(...desktopNotice(JSON.parse(frame.payload) as StreamedNotification)).catch(() => undefined);
        } else if (frame.event === 'filters_changed') {
          // Filters apply on the server: the timeline is read again to carry the new matches.
          void get().loadHome();
        } else if (frame.event === 'delete' && frame.payload) {
          const id = frame.payload;
          set({ home: get().home.filter((s) => s.id !== id && s.reblog?.id !== id), incoming: get().incoming.filter((s) => s.id !== id) });
        }
      };
      socket.onclose = () => {
        set({ live: false });
        if (!closed) retry = setTimeout(() => open(Math.min(delay * 2, 30_000)), delay);
      };
    };
    open(1000);
    return () => {
      closed = true;
      if (retry) clearTimeout(retry);
      socket?.close();
    };
  },
}));
