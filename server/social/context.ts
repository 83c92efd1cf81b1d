import type { Logger } from '../logger.ts';
import type { AccountService } from './domain/accounts.ts';
import type { RelationshipService } from './domain/relationships.ts';
import type { AccountPresenter } from './entities/account.ts';
import type { RouteAuth } from './http/auth.ts';
import type { Mailer } from './mail/mailer.ts';
import type { MediaStorage } from './media/storage.ts';
import type { SocialStore } from './store/index.ts';
import type { SocialUrls } from './urls.ts';

export interface RegisteredRoute {
  method: string;
  url: string;
  auth: RouteAuth;
  deprecated: boolean;
}

/** Everything a route module needs, built once by openSocial. */
export interface SocialContext {
  store: SocialStore;
  urls: SocialUrls;
  logger: Logger;
  mailer: Mailer;
  media: MediaStorage;
  accounts: AccountService;
  relationships: RelationshipService;
  presenter: AccountPresenter;
  vapidPublicKey: string;
  /** Every API route with its auth rule (the scope test walks this list). */
  routes: RegisteredRoute[];
}
