import { create } from 'zustand';
import type { SocialAccount } from '../../stores/social-client.ts';

/**
 * What the server keeps as the user's posting defaults (verify_credentials' `source`; Mastodon applies them to
 * posts that leave them out, and this client starts its compose form from them).
 */
export interface PostingDefaults {
  privacy: 'public' | 'unlisted' | 'private';
  sensitive: boolean;
  language: string | null;
}

/** The signed-in account as verify_credentials and update_credentials answer: with its `source`. */
export type CredentialAccount = SocialAccount & { source?: Partial<PostingDefaults> };

/** The visibility and language the compose form starts from: the account's defaults, else public and none. */
export function postingDefaults(me: SocialAccount | null): { visibility: string; language: string | null } {
  const source = (me as CredentialAccount | null)?.source;
  return { visibility: source?.privacy ?? 'public', language: source?.language || null };
}

export interface ReadingChoices {
  /** Posts behind a content warning open already. */
  expandWarnings: boolean;
  /** Media marked sensitive shows without a click (a filter that blurs still hides it). */
  showSensitive: boolean;
}

const KEY = 'homeport.social.reading';
const DEFAULTS: ReadingChoices = { expandWarnings: false, showSensitive: false };

function load(): ReadingChoices {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<ReadingChoices>;
    return { expandWarnings: saved.expandWarnings === true, showSensitive: saved.showSensitive === true };
  } catch {
    return DEFAULTS;
  }
}

/** This client's own reading choices, kept in this browser (not on the server: another app reads differently). */
export const useReadingChoices = create<ReadingChoices & { change(patch: Partial<ReadingChoices>): void }>(
  (set, get) => ({
    ...load(),
    change(patch) {
      set(patch);
      const { expandWarnings, showSensitive } = get();
      localStorage.setItem(KEY, JSON.stringify({ expandWarnings, showSensitive }));
    },
  }),
);
