import type { Migration } from '../../../db/index.ts';
import { statusesTables } from './statuses.ts';
import { tagsTables } from './tags.ts';
import { mediaPollsTables } from './media-polls.ts';
import { interactionsTables } from './interactions.ts';
import { notificationsListsFiltersTables } from './notifications-lists-filters.ts';
import { pushAnnouncementsTables } from './push-announcements.ts';
import { reportsEmojisCardsTables } from './reports-emojis-cards.ts';

/* Version 3, the bulk of the schema, one file per table group (run in this order, as one migration). */
export const migration: Migration = {
  version: 3,
  name: 'statuses, media, polls, notifications, conversations, lists, filters, push',
  up(db) {
    for (const tables of [
      statusesTables,
      tagsTables,
      mediaPollsTables,
      interactionsTables,
      notificationsListsFiltersTables,
      pushAnnouncementsTables,
      reportsEmojisCardsTables,
    ])
      db.exec(tables);
  },
};
