import type { Database } from '../../db/index.ts';
import { AccountRepository } from './accounts.ts';
import { NotificationRepository } from './notifications.ts';
import { OAuthRepository } from './oauth.ts';
import { OutboxRepository } from './outbox.ts';
import { RelationshipRepository } from './relationships.ts';
import { RuleRepository } from './rules.ts';
import { SettingsRepository } from './settings.ts';
import { StoreCore } from './store.ts';
import { UserRepository } from './users.ts';

export * from './accounts.ts';
export * from './notifications.ts';
export * from './oauth.ts';
export * from './outbox.ts';
export * from './relationships.ts';
export * from './rules.ts';
export * from './settings.ts';
export * from './users.ts';
export { StoreCore, cursorWhere, finishPage, jsonIds, type PageQuery, type SqlValue } from './store.ts';

/** All repositories of social.db, sharing one connection, id generator and clock. */
export class SocialStore {
  readonly core: StoreCore;
  readonly settings: SettingsRepository;
  readonly accounts: AccountRepository;
  readonly users: UserRepository;
  readonly oauth: OAuthRepository;
  readonly relationships: RelationshipRepository;
  readonly notifications: NotificationRepository;
  readonly outbox: OutboxRepository;
  readonly rules: RuleRepository;

  constructor(db: Database, now: () => number = Date.now) {
    this.core = new StoreCore(db, now);
    this.settings = new SettingsRepository(this.core);
    this.accounts = new AccountRepository(this.core);
    this.users = new UserRepository(this.core);
    this.oauth = new OAuthRepository(this.core);
    this.relationships = new RelationshipRepository(this.core);
    this.notifications = new NotificationRepository(this.core);
    this.outbox = new OutboxRepository(this.core);
    this.rules = new RuleRepository(this.core);
  }

  get db(): Database {
    return this.core.db;
  }

  now(): number {
    return this.core.now();
  }

  transaction<T>(fn: () => T): T {
    return this.core.transaction(fn);
  }
}
