import type { SocialContext } from '../context.ts';
import type { StatusRow } from '../store/index.ts';
import { CARD_FRESH_MS, CardCrawler } from './crawler.ts';
import { SafeFetcher } from './fetch.ts';
import { cardLinkOf, type LinkContext, mayHaveCardLink } from './links.ts';

export interface PreviewCardOptions {
  /** False: no link is fetched and no card made (tests that do not ask for cards reach no other host). */
  enabled?: boolean;
  /** Tests only: links to loopback and private addresses are fetched. */
  allowPrivateAddress?: boolean;
  /** Deadline of one page or image fetch, redirects included (default 10 s). */
  timeoutMs?: number;
  /** Statuses that may wait for their card (default 1,000); past it new ones get none, so a burst of posts
   *  with links (a bench, an import) cannot grow the queue without bound. */
  queueLimit?: number;
}

export interface PreviewCards {
  /** Statuses queued so far to have their card looked for (each is read again and its link chosen). */
  looked(): number;
  /** Resolves when no status is waiting for its card. */
  idle(): Promise<void>;
  /**
   * Removes cards no status shows any more (after a day unchanged, as Mastodon's PreviewCardsVacuum) and their
   * image files, and forgets fetches past every freshness; at most SWEEP_BATCH of each per call (it runs
   * hourly). Returns how many cards went.
   */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

/** Mastodon's HTTP client follows at most three redirects. */
const MAX_REDIRECTS = 3;
const DEFAULT_TIMEOUT_MS = 10_000;
/** Statuses whose links are fetched at once; more wait their turn. */
const CONCURRENCY = 4;
const DEFAULT_QUEUE_LIMIT = 1_000;
/** How often unused cards and stale fetches are cleared, and how many of each at most per run. */
const SWEEP_MS = 60 * 60 * 1000;
export const SWEEP_BATCH = 500;
/** A card no status shows is kept a day (a post may still come to show it: Mastodon's PreviewCardsVacuum::TTL). */
export const UNUSED_CARD_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Link preview cards (Mastodon's LinkCrawlWorker): after a status is created or edited (ours, or one that
 * came through federation; the events are told after the transaction commits), the link that gets a card is
 * found in its HTML and, in the background, its card is fetched or taken from the cache and shown on the
 * status. An edit that changes the link changes the card (or takes it away); an edit that keeps it, or a
 * poll's new counts, leaves it. Nothing here runs inside a request or a transaction.
 */
export function startPreviewCards(ctx: SocialContext, options: PreviewCardOptions = {}): PreviewCards {
  const { store } = ctx;
  const log = ctx.logger.child({ component: 'preview-cards' });
  const fetcher = new SafeFetcher({
    allowPrivateAddress: options.allowPrivateAddress,
    userAgent: `Homeport (+${ctx.urls.base}/) Bot`,
  });
  const crawler = new CardCrawler({
    store,
    media: ctx.media,
    fetcher,
    limits: { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxRedirects: MAX_REDIRECTS },
    log,
  });
  const shutdown = new AbortController();
  const waiting: string[] = [];
  const queued = new Set<string>();
  const running = new Set<Promise<void>>();
  let idleWaiters: (() => void)[] = [];

  const linkContext = (status: StatusRow): LinkContext => {
    const mentioned = store.accounts.byIds(store.statuses.mentions([status.id]).map((m) => m.accountId));
    const addresses = new Set<string>();
    for (const a of mentioned) {
      for (const address of [a.uri, a.url, ctx.presenter.profileUrl(a)]) if (address) addresses.add(address);
    }
    return {
      localHost: ctx.urls.domain,
      mentionedAddresses: addresses,
      isKnownStatus: (address) => store.statuses.idByUriOrUrl(address) !== null,
    };
  };

  /** The link of a status that should have a card now, or null (a reblog, a deleted status, no link). */
  const wantedLink = (statusId: string): string | null => {
    const status = store.statuses.byId(statusId);
    if (!status || status.deletedAt !== null || status.reblogOfId !== null) return null;
    return cardLinkOf(status.content, linkContext(status));
  };

  const refresh = async (statusId: string): Promise<void> => {
    const link = wantedLink(statusId);
    const shown = store.previewCards.linkOf(statusId);
    if (shown !== null && shown === link) return;
    if (shown !== null) store.previewCards.detach(statusId);
    if (link === null) return;
    const cardId = await crawler.cardFor(link, shutdown.signal);
    // The status may have been edited or deleted while its link was fetched: only a card it still wants is shown.
    if (cardId !== null && !shutdown.signal.aborted && wantedLink(statusId) === link)
      store.previewCards.attach(statusId, cardId, link);
  };

  const pump = (): void => {
    while (running.size < CONCURRENCY && waiting.length > 0 && !shutdown.signal.aborted) {
      const statusId = waiting.shift()!;
      queued.delete(statusId);
      const job: Promise<void> = refresh(statusId)
        .catch((err: unknown) => log.warn({ err, statusId }, 'preview card not made'))
        .finally(() => {
          running.delete(job);
          pump();
        });
      running.add(job);
    }
    if (running.size === 0 && (waiting.length === 0 || shutdown.signal.aborted)) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };

  const queueLimit = options.queueLimit ?? DEFAULT_QUEUE_LIMIT;
  let dropped = 0;
  /** Statuses queued to have their card looked for (read again, their link chosen). */
  let looked = 0;
  const enqueue = (status: StatusRow, created: boolean): void => {
    if (status.reblogOfId !== null || shutdown.signal.aborted || queued.has(status.id)) return;
    // A new post whose markup has no link a card could be made of (most: text, mentions, hashtags) has nothing
    // to fetch or show: it is not read again. An edit is, as it may take a card away.
    if (created && !mayHaveCardLink(status.content)) return;
    if (waiting.length >= queueLimit) {
      // Logged once per burst, not per status.
      if (dropped++ === 0)
        log.warn({ queueLimit }, 'link previews are behind: new posts get no card until the queue drains');
      return;
    }
    dropped = 0;
    looked++;
    queued.add(status.id);
    waiting.push(status.id);
    // After the emitting code has finished its own work (events are told synchronously after commit).
    setImmediate(pump);
  };

  const offs =
    options.enabled === false
      ? []
      : [
          ctx.events.on('status.created', (e) => enqueue(e.status, true)),
          ctx.events.on('status.updated', (e) => enqueue(e.status, false)),
        ];

  const sweep = async (): Promise<number> => {
    const now = store.now();
    const { removed, files } = store.previewCards.removeUnused(now - UNUSED_CARD_TTL_MS, SWEEP_BATCH);
    store.previewCards.forgetFetches(now - CARD_FRESH_MS, SWEEP_BATCH);
    for (const file of files)
      await ctx.media.remove(file).catch((err: unknown) => log.warn({ err, file }, 'preview card image not removed'));
    return removed;
  };
  // Old cards are cleared whether or not new ones are made.
  const sweeper = setInterval(() => {
    sweep().then(
      (n) => n > 0 && log.info({ removed: n }, 'preview cards no post shows any more removed'),
      (err: unknown) => log.error({ err }, 'preview card sweep failed'),
    );
  }, SWEEP_MS);
  sweeper.unref();

  return {
    sweep,
    looked: () => looked,
    idle() {
      if (running.size === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async close() {
      clearInterval(sweeper);
      for (const off of offs) off();
      shutdown.abort();
      waiting.length = 0;
      queued.clear();
      await Promise.all([...running]);
      fetcher.close();
      pump();
    },
  };
}
