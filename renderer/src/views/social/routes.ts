import { goBack, navigate, routePath } from '../../stores/router.ts';

/*
 * Every view of the social client has its own address under /ui/social, so it can be bookmarked, reloaded,
 * shared and opened in a new tab: /home, /local, /federated, /notifications?type=mention, /bookmarks,
 * /favourites, /lists, /lists/<id>, /filters, /people, /hashtags, /tags/<name>, /settings,
 * /statuses/<id> (a thread), /accounts/<id>[/<tab>] (a profile), /search?q=….
 */

export type ProfileTab = 'posts' | 'replies' | 'media' | 'following' | 'followers';

export const socialPath = (parts: (string | number)[] = [], query: Record<string, string | undefined> = {}) =>
  routePath('social', parts, query);
export const homePath = () => socialPath(['home']);
export const statusPath = (id: string) => socialPath(['statuses', id]);
export const accountPath = (id: string, tab: ProfileTab = 'posts') =>
  socialPath(tab === 'posts' ? ['accounts', id] : ['accounts', id, tab]);
export const tagPath = (name: string) => socialPath(['tags', name]);
export const listPath = (id: string) => socialPath(['lists', id]);
export const searchPath = (q: string) => socialPath(['search'], { q });

/** Where the links of the client lead, as callbacks for the views that open things on a click. */
export const openThread = (id: string) => navigate(statusPath(id));
export const openProfile = (id: string) => navigate(accountPath(id));
export const openTag = (name: string) => navigate(tagPath(name));
/** The Back buttons of threads, profiles and hashtags: the page before, or Home when opened directly. */
export const backInClient = () => goBack(homePath());
