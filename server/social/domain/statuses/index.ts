import type { Logger } from '../../../logger.ts';
import type { MediaStorage } from '../../media/index.ts';
import type {
  Account,
  QuotePolicy,
  ScheduledStatusRow,
  SocialStore,
  StatusRow,
  Visibility,
} from '../../store/index.ts';
import type { SocialUrls } from '../../urls.ts';
import type { NotificationService } from '../notifications.ts';
import { StatusActions } from './actions.ts';
import { StatusComposer } from './compose.ts';
import { StatusRemover } from './delete.ts';
import { StatusEditor } from './edit.ts';
import type { EditInput, Formatted, Poster, PostInput, PostResult } from './inputs.ts';
import { StatusPublisher } from './publish.ts';
import { StatusReader } from './thread.ts';

export * from './inputs.ts';
export { UnexpectedMentions } from './compose.ts';

/**
 * Posting, editing, deleting and every action on statuses, with their effects: home feeds, direct
 * conversations, notifications, idempotency, scheduling, and the domain events told after each commit.
 * A facade over one part per concern; routes call this and it throws domain errors (social/errors.ts).
 */
export class StatusService {
  /** Called when a poll or scheduled status is created, so the job timer can look again. */
  onScheduleChange: () => void = () => {};
  private readonly reader: StatusReader;
  private readonly composer: StatusComposer;
  private readonly publisher: StatusPublisher;
  private readonly editor: StatusEditor;
  private readonly remover: StatusRemover;
  private readonly actions: StatusActions;

  constructor(
    store: SocialStore,
    urls: SocialUrls,
    notifications: NotificationService,
    media: MediaStorage,
    logger: Logger,
  ) {
    this.reader = new StatusReader(store);
    this.composer = new StatusComposer(store, urls);
    const deps = {
      store,
      urls,
      notifications,
      media,
      logger,
      reader: this.reader,
      composer: this.composer,
      scheduleChanged: () => this.onScheduleChange(),
    };
    this.publisher = new StatusPublisher(deps);
    this.editor = new StatusEditor(deps);
    this.remover = new StatusRemover(deps);
    this.actions = new StatusActions(deps);
  }

  readable(viewer: Account | null, id: string): StatusRow {
    return this.reader.readable(viewer, id);
  }
  actionTarget(viewer: Account, id: string): StatusRow {
    return this.reader.actionTarget(viewer, id);
  }
  /** The status `author` may quote (Mastodon 4.5's policy); throws forbidden or not found otherwise. */
  quoteTarget(author: Account, id: string): StatusRow {
    return this.reader.quoteTarget(author, id);
  }
  context(viewer: Account | null, status: StatusRow): { ancestors: StatusRow[]; descendants: StatusRow[] } {
    return this.reader.context(viewer, status);
  }
  profileUrl(account: Account): string {
    return this.composer.profileUrl(account);
  }
  format(text: string): Formatted {
    return this.composer.format(text);
  }
  post(poster: Poster, input: PostInput): PostResult {
    return this.publisher.post(poster, input);
  }
  publishScheduled(scheduled: ScheduledStatusRow): StatusRow | null {
    return this.publisher.publishScheduled(scheduled);
  }
  edit(author: Account, statusId: string, input: EditInput): StatusRow {
    return this.editor.edit(author, statusId, input);
  }
  setQuotePolicy(author: Account, statusId: string, policy: QuotePolicy): StatusRow {
    return this.editor.setQuotePolicy(author, statusId, policy);
  }
  delete(author: Account, status: StatusRow, deleteMedia: boolean): Promise<void> {
    return this.remover.delete(author, status, deleteMedia);
  }
  /** A moderator's deletion of someone else's status (the author is told with a moderation warning). */
  deleteAsModerator(moderator: Account, status: StatusRow): Promise<void> {
    return this.remover.delete(moderator, status, false, true);
  }
  reblog(me: Poster, statusId: string, visibility: Visibility | undefined): StatusRow {
    return this.actions.reblog(me, statusId, visibility);
  }
  unreblog(me: Account, statusId: string): StatusRow {
    return this.actions.unreblog(me, statusId);
  }
  favourite(me: Account, statusId: string): StatusRow {
    return this.actions.favourite(me, statusId);
  }
  unfavourite(me: Account, statusId: string): StatusRow {
    return this.actions.unfavourite(me, statusId);
  }
  bookmark(me: Account, statusId: string, on: boolean): StatusRow {
    return this.actions.bookmark(me, statusId, on);
  }
  pin(me: Account, statusId: string): StatusRow {
    return this.actions.pin(me, statusId);
  }
  unpin(me: Account, statusId: string): StatusRow {
    return this.actions.unpin(me, statusId);
  }
  muteConversation(me: Account, statusId: string, mute: boolean): StatusRow {
    return this.actions.muteConversation(me, statusId, mute);
  }
  revokeQuote(me: Account, statusId: string, quotingStatusId: string): StatusRow {
    return this.actions.revokeQuote(me, statusId, quotingStatusId);
  }
}
