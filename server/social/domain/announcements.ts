import { DetailsCollector, notFound, ValidationFailure } from '../errors.ts';
import type { Account, SocialStore } from '../store/index.ts';

/** Longest announcement text (Mastodon's admin form has none; bounded all the same). */
const TEXT_MAX = 5_000;
/** A reaction is one emoji (or a custom emoji's shortcode): short, no spaces. */
const REACTION =
  /^(?:\p{Extended_Pictographic}|\p{Emoji_Presentation}|\p{Emoji_Modifier}|\p{Emoji_Component}|\u200d|\ufe0f){1,16}$|^[A-Za-z0-9_]{2,64}$/u;

/**
 * Announcements: the owner publishes and removes them, users dismiss them and react to them. Each change is
 * told on the bus after it commits (the user streams carry them).
 */
export class AnnouncementService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  publish(input: { text: string; allDay?: boolean; startsAt?: number | null; endsAt?: number | null }): string {
    const details = new DetailsCollector();
    const text = input.text.trim();
    if (!text) details.add('text', 'ERR_BLANK', "can't be blank");
    if ([...text].length > TEXT_MAX)
      details.add('text', 'ERR_TOO_LONG', `is too long (maximum is ${TEXT_MAX} characters)`);
    const startsAt = input.startsAt ?? null;
    const endsAt = input.endsAt ?? null;
    // The seed: all_day can be set only with a time range.
    if (input.allDay && (startsAt === null || endsAt === null))
      details.add('all_day', 'ERR_INVALID', 'needs both a start and an end');
    if (startsAt !== null && endsAt !== null && endsAt <= startsAt)
      details.add('ends_at', 'ERR_INVALID', 'must be after the start');
    details.throwIfAny();
    return this.store.transaction(() => {
      const id = this.store.announcements.insert({ text, allDay: input.allDay ?? false, startsAt, endsAt });
      this.store.events.emit('announcement.published', { announcementId: id });
      return id;
    });
  }

  remove(id: string): void {
    this.store.transaction(() => {
      if (!this.store.announcements.delete(id)) throw notFound();
      this.store.events.emit('announcement.deleted', { announcementId: id });
    });
  }

  dismiss(me: Account, id: string): void {
    if (!this.store.announcements.byId(id)) throw notFound();
    this.store.announcements.dismiss(me.id, id);
  }

  react(me: Account, id: string, name: string, on: boolean): void {
    if (!this.store.announcements.byId(id)) throw notFound();
    if (!REACTION.test(name)) throw ValidationFailure.single('name', 'ERR_INVALID', 'is not an emoji');
    this.store.transaction(() => {
      const changed = on
        ? this.store.announcements.react(me.id, id, name)
        : this.store.announcements.unreact(me.id, id, name);
      if (changed)
        this.store.events.emit('announcement.reaction', {
          announcementId: id,
          name,
          count: this.store.announcements.reactionCount(id, name),
        });
    });
  }
}
