import type { SocialStore } from '../store/index.ts';

const VERSIONS_KEY = 'terms_of_service_versions';
/** Versions kept readable (each is at most 50,000 characters, so this bounds what the setting holds). */
const MAX_VERSIONS = 20;

export interface TermsVersion {
  /** YYYY-MM-DD, the day it took effect (UTC). */
  effectiveDate: string;
  content: string;
}

/** Published versions, oldest first. */
export function termsVersions(store: SocialStore): TermsVersion[] {
  const raw = store.settings.get(VERSIONS_KEY);
  return raw ? (JSON.parse(raw) as TermsVersion[]) : [];
}

/**
 * Publishes the terms as the version of today (replacing one published earlier the same day); empty text
 * publishes nothing, so earlier versions stay the current ones.
 */
export function publishTermsOfService(store: SocialStore, content: string): void {
  if (!content.trim()) return;
  const today = new Date(store.now()).toISOString().slice(0, 10);
  const versions = termsVersions(store).filter((v) => v.effectiveDate !== today);
  versions.push({ effectiveDate: today, content });
  store.settings.set(VERSIONS_KEY, JSON.stringify(versions.slice(-MAX_VERSIONS)));
}
