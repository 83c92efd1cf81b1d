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
