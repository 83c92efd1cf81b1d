/* What a route asks of its caller; a leaf module, so the context can name it without importing auth.ts. */

/**
 * How a route authenticates (every API route declares one in its `config.auth`):
 * - public: no token looked at;
 * - optional: works anonymously, but a presented token must be valid and hold one of `scopes`;
 * - app: any valid token (client credentials or user) holding one of `scopes`;
 * - user: a user's token holding one of `scopes`, of a confirmed, approved, enabled user
 *   (`allowUnconfirmed` lets unconfirmed users through, for e-mail confirmation).
 * `scopes` are alternatives (any one suffices); umbrella scopes and `follow` cover their children.
 */
export type RouteAuth =
  | { kind: 'public' }
  | { kind: 'optional'; scopes: string[] }
  | { kind: 'app'; scopes: string[] }
  | { kind: 'user'; scopes: string[]; allowUnconfirmed?: boolean };

export const auth = {
  public: (): RouteAuth => ({ kind: 'public' }),
  optional: (...scopes: string[]): RouteAuth => ({ kind: 'optional', scopes }),
  app: (...scopes: string[]): RouteAuth => ({ kind: 'app', scopes }),
  user: (...scopes: string[]): RouteAuth => ({ kind: 'user', scopes }),
  unconfirmedUser: (...scopes: string[]): RouteAuth => ({ kind: 'user', scopes, allowUnconfirmed: true }),
};
