/**
 * The post being written, kept in this browser until it is posted (closing the window or reloading loses
 * nothing). One per server and account; an edit of an existing post is not kept.
 */
export interface SavedDraft {
  text: string;
  spoiler: string;
  visibility: string;
}

const keyOf = (server: string, acct: string) => `homeport.social.draft:${server}:${acct}`;

export function loadDraft(server: string, acct: string | undefined): SavedDraft | null {
  if (!acct) return null;
  try {
    const value = JSON.parse(localStorage.getItem(keyOf(server, acct)) ?? 'null') as SavedDraft | null;
    return value && typeof value.text === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function saveDraft(server: string, acct: string | undefined, draft: SavedDraft): void {
  if (!acct) return;
  if (draft.text.trim() === '' && draft.spoiler.trim() === '') localStorage.removeItem(keyOf(server, acct));
  else localStorage.setItem(keyOf(server, acct), JSON.stringify(draft));
}
