import type { Logger } from '../../../logger.ts';
import type { MediaStorage } from '../../media/index.ts';
import type { SocialStore } from '../../store/index.ts';
import type { SocialUrls } from '../../urls.ts';
import type { NotificationService } from '../notifications.ts';
import type { StatusComposer } from './compose.ts';
import type { StatusReader } from './thread.ts';

/** What the parts of the status service share. */
export interface StatusDeps {
  store: SocialStore;
  urls: SocialUrls;
  notifications: NotificationService;
  media: MediaStorage;
  logger: Logger;
  reader: StatusReader;
  composer: StatusComposer;
  /** A poll or scheduled status was created or changed: the job timer looks again. */
  scheduleChanged(): void;
}
