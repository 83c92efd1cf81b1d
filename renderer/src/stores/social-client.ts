import { create } from 'zustand';
import { desktopBridge } from '../desktop-bridge.ts';
import { desktopNotice, type StreamedNotification } from './desktop-notice.ts';
import { keepStreamOpen, streamUrl } from './stream-socket.ts';
import { beginSignIn, finishSignIn, loadToken, rememberedServer, saveToken, serverOrigin } from './social-auth.ts';
import type {
  ComposeDraft,
  GroupedResults,
  NotificationGroupView,
  SocialAccount,
  SocialMedia,
  SocialPoll,
  SocialStatus,
  StatusAction,
} from './social-types.ts';

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

export class MastodonError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** The narrower of two visibilities (a reply is never more public than the post it answers, as Mastodon does). */
function narrower(a: string, b: string): string {
  const order = ['public', 'unlisted', 'private', 'direct'];
  return order[Math.max(order.indexOf(a), order.indexOf(b))] ?? 'public';
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
  /** The path of the next (older) page of the home timeline, from its Link header; null at the end. */
  homeOlder: string | null;
  /** Where the user had read up to when the home timeline was loaded (the home marker), to show the line. */
  homeReadUpTo: string | null;
  loadHome(): Promise<void>;
  /** Appends the next older page of the home timeline (infinite scroll). */
  loadOlderHome(): Promise<void>;
  /** Puts the posts that arrived live on top, and moves the reading position to them. */
  showIncoming(): void;
  /** Asks for what was posted while the stream was down (newer than the newest post known), as incoming. */
  catchUp(): Promise<void>;
  /** Saves the newest post shown on top of home as the reading position (the home marker). */
  markHomeRead(): Promise<void>;
  /** Posts, or saves the edit when `draft.editing` names a post. */
  /** Posts (a reply or quote when the draft says so), schedules it when `scheduledAt` is given, or saves an edit. */
  post(input: {
    status: string;
    spoilerText?: string;
    visibility?: string;
    language?: string;
    scheduledAt?: string;
    mediaIds?: string[];
    /** The media are sensitive: hidden behind their blurhash until asked. */
    sensitive?: boolean;
    poll?: { options: string[]; expiresIn: number };
  }): Promise<'posted' | 'scheduled' | 'edited'>;
  /** What the compose form should hold: a post being edited, or a deleted post's text to post again. */
  draft: ComposeDraft | null;
  /** A reply to `status` in the compose form: its author and mentions named, its warning and visibility kept. */
  startReply(status: SocialStatus): void;
  /** A new post quoting `status` in the compose form. */
  startQuote(status: SocialStatus): void;
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

  draft: null,

  async startEdit(status) {
    const source = await get().request<{ id: string; text: string; spoiler_text: string }>(
      `/api/v1/statuses/${status.id}/source`,
    );
    set({
      draft: { editing: status.id, text: source.text, spoilerText: source.spoiler_text, visibility: status.visibility },
    });
  },

  async deleteStatus(status, redraft) {
    const deleted = await get().request<SocialStatus & { text?: string }>(`/api/v1/statuses/${status.id}`, {
      method: 'DELETE',
    });
    const gone = (list: SocialStatus[]) => list.filter((s) => s.id !== status.id && s.reblog?.id !== status.id);
    set({
      home: gone(get().home),
      incoming: gone(get().incoming),
      overrides: { ...get().overrides, [status.id]: { deleted: true } },
    });
    if (redraft)
      set({
        draft: {
          editing: null,
          text: deleted.text ?? '',
          spoilerText: deleted.spoiler_text ?? '',
          visibility: deleted.visibility ?? 'public',
        },
      });
  },

  clearDraft() {
    set({ draft: null });
  },

  startReply(status) {
    const target = status.reblog ?? status;
    const me = get().me;
    // The author first, then everyone they mentioned, never oneself (as Mastodon's web client).
    const handles = [target.account.acct, ...(target.mentions ?? []).map((m) => m.acct)].filter(
      (acct, i, all) => acct !== me?.acct && all.indexOf(acct) === i,
    );
    set({
      draft: {
        editing: null,
        text: handles.map((h) => `@${h} `).join(''),
        spoilerText: target.spoiler_text,
        visibility: narrower(target.visibility, 'public'),
        replyTo: target,
      },
    });
  },

  startQuote(status) {
    const target = status.reblog ?? status;
    set({ draft: { editing: null, text: '', spoilerText: '', visibility: 'public', quoting: target } });
  },

  async post(input) {
    const draft = get().draft;
    if (draft?.editing) {
      const edited = await get().request<SocialStatus>(`/api/v1/statuses/${draft.editing}`, {
        method: 'PUT',
        body: { status: input.status, spoiler_text: input.spoilerText ?? '', language: input.language },
      });
      const replace = (list: SocialStatus[]) =>
        list.map((s) =>
          s.id === edited.id
            ? { ...s, ...edited }
            : s.reblog?.id === edited.id
              ? { ...s, reblog: { ...s.reblog, ...edited } }
              : s,
        );
      const { content, spoiler_text, edited_at } = edited;
      set({
        home: replace(get().home),
        overrides: {
          ...get().overrides,
          [edited.id]: { ...get().overrides[edited.id], content, spoiler_text, edited_at },
        },
        draft: null,
      });
      return 'edited';
    }
    const answer = await get().request<SocialStatus & { scheduled_at?: string; params?: unknown }>('/api/v1/statuses', {
      method: 'POST',
      body: {
        status: input.status,
        spoiler_text: input.spoilerText || undefined,
        visibility: input.visibility ?? 'public',
        language: input.language || undefined,
        scheduled_at: input.scheduledAt || undefined,
        in_reply_to_id: draft?.replyTo?.id,
        quoted_status_id: draft?.quoting?.id,
        media_ids: input.mediaIds?.length ? input.mediaIds : undefined,
        sensitive: input.sensitive || undefined,
        poll: input.poll ? { options: input.poll.options, expires_in: input.poll.expiresIn } : undefined,
      },
    });
    set({ draft: null });
    // A scheduled post answers with the ScheduledStatus: nothing to show until it is published.
    if (answer.params !== undefined) return 'scheduled';
    const status = answer as SocialStatus;
    // One's own post goes straight to the top; the stream's copy of it is then skipped.
    set({
      home: [status, ...get().home.filter((s) => s.id !== status.id)],
      incoming: get().incoming.filter((s) => s.id !== status.id),
    });
    if (draft?.replyTo)
      set({
        overrides: {
          ...get().overrides,
          [draft.replyTo.id]: { ...get().overrides[draft.replyTo.id], replies_count: draft.replyTo.replies_count + 1 },
        },
      });
    return 'posted';
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
    const updated = await get().request<SocialPoll>(`/api/v1/polls/${poll.id}/votes`, {
      method: 'POST',
      body: { choices },
    });
    const patch = (list: SocialStatus[]) =>
      list.map((s) =>
        s.poll?.id === poll.id
          ? { ...s, poll: updated }
          : s.reblog?.poll?.id === poll.id
            ? { ...s, reblog: { ...s.reblog, poll: updated } }
            : s,
      );
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
