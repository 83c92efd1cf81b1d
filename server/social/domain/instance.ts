import { createRequire } from 'node:module';
import type { ServerRule, SocialStore } from '../store/index.ts';
import { publishTermsOfService } from './terms-of-service.ts';

/** The owner's description of the server: its settings (title, descriptions, policies, terms) and its rules. */
export class InstanceService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  /**
   * Sets one of the owner's settings (an unknown key or invalid value throws, saying why) and returns it as stored.
   * Policies remember when they changed; terms of service are published as today's version.
   */
  setOwnerSetting(key: string, value: string): string {
    return this.store.transaction(() => {
      const stored = this.store.settings.setOwner(key, value);
      if (key === 'extended_description' || key === 'privacy_policy')
        this.store.settings.set(`${key}_updated_at`, String(this.store.now()));
      if (key === 'terms_of_service') publishTermsOfService(this.store, stored);
      return stored;
    });
  }

  addRule(text: string, hint: string): ServerRule {
    return this.store.rules.add(text, hint);
  }

  /** False when there is no rule by that id (or it was removed before). */
  removeRule(id: string): boolean {
    return this.store.rules.remove(id);
  }
}

/**
 * Keys that must exist once per database (the Web Push key pair, the creation time); set only where missing, so a
 * concurrently starting CLI cannot replace them. Returns the public Web Push key.
 */
export function ensureServerKeys(store: SocialStore): string {
  if (store.settings.get('vapid_public_key') === null) {
    // Loaded only on the first start of a data directory (a synchronous require: opening the store is synchronous).
    const webpush = createRequire(import.meta.url)('web-push') as typeof import('web-push');
    const keys = webpush.generateVAPIDKeys();
    store.transaction(() => {
      store.settings.setIfAbsent('vapid_public_key', keys.publicKey);
      store.settings.setIfAbsent('vapid_private_key', keys.privateKey);
    });
  }
  store.settings.setIfAbsent('created_at', String(store.now()));
  return store.settings.get('vapid_public_key')!;
}
