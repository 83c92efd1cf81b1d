/** The social client's store shape (social-client.ts builds it; social-compose.ts adds the compose actions). */
import type {
  ComposeDraft,
  NotificationGroupView,
  SocialAccount,
  SocialMedia,
  SocialPoll,
  SocialStatus,
  StatusAction,
} from './social-types.ts';

export class MastodonError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface SocialClientState {
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
