import type { Migration } from '../../db/index.ts';
import { migration as v001 } from './001-settings.ts';
import { migration as v002 } from './002-accounts-users-oauth.ts';
import { migration as v003 } from './003-statuses-media-notifications/index.ts';
import { migration as v004 } from './004-home-feeds-counters.ts';
import { migration as v005 } from './005-unavailable-accounts-index.ts';
import { migration as v006 } from './006-follow-counters.ts';
import { migration as v007 } from './007-federation-queues.ts';
import { migration as v008 } from './008-web-push.ts';
import { migration as v009 } from './009-full-text-search.ts';
import { migration as v010 } from './010-notification-groups.ts';
import { migration as v011 } from './011-drop-first-push-table.ts';
import { migration as v012 } from './012-reports-by-target.ts';
import { migration as v013 } from './013-notification-policies.ts';
import { migration as v014 } from './014-collections.ts';
import { migration as v015 } from './015-moderation-blocks.ts';
import { migration as v016 } from './016-quote-posts.ts';
import { migration as v017 } from './017-moderation-warnings.ts';
import { migration as v018 } from './018-remote-quotes.ts';
import { migration as v019 } from './019-link-preview-cards.ts';
import { migration as v020 } from './020-status-counters-versions.ts';
import { migration as v021 } from './021-trending-links.ts';
import { migration as v022 } from './022-account-versions.ts';
import { migration as v023 } from './023-csv-imports.ts';
import { migration as v024 } from './024-import-row-lookups.ts';
import { migration as v025 } from './025-annual-reports.ts';
import { migration as v026 } from './026-trend-reviews.ts';
import { migration as v027 } from './027-relayed-events.ts';
import { migration as v028 } from './028-deleted-statuses-off-tags.ts';
import { migration as v029 } from './029-live-statuses-by-account.ts';
import { migration as v030 } from './030-public-statuses-listing.ts';
import { migration as v031 } from './031-gone-actors.ts';

/*
 * The social server's schema (social.db). Conventions:
 * - ids are snowflakes (ms timestamp << 16 | sequence) stored as INTEGER and read as BigInt
 *   (the database runs with safeIntegers); the API shows them as decimal strings;
 * - times are INTEGER milliseconds since the epoch; booleans are INTEGER 0/1;
 * - accounts cover local and remote (federated) actors: `domain` is NULL for local ones, and a local
 *   account has a `users` row behind it (e-mail, password, confirmation, approval, role).
 * Part 2 (statuses, media, polls, timelines, notifications, conversations, scheduled statuses) uses the
 * tables of version 3 and adds home feeds, counters and indexes in version 4.
 *
 * One file per version (NNN-name.ts), listed here in order; versions.test.ts says how to add one.
 */
export const socialMigrations: readonly Migration[] = [
  v001,
  v002,
  v003,
  v004,
  v005,
  v006,
  v007,
  v008,
  v009,
  v010,
  v011,
  v012,
  v013,
  v014,
  v015,
  v016,
  v017,
  v018,
  v019,
  v020,
  v021,
  v022,
  v023,
  v024,
  v025,
  v026,
  v027,
  v028,
  v029,
  v030,
  v031,
];
