import type { AccessGrant, AccessToken, NewAccessGrant, OAuthApp, SocialStore } from '../store/index.ts';

/** OAuth: client applications, the sign-in sessions of the authorization pages, codes granted, and access tokens. */
export class ApplicationService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  /** Registers a client; its secret is shown this once. */
  register(input: { name: string; website: string | null; redirectUris: string[]; scopes: string[] }): {
    app: OAuthApp;
    clientSecret: string;
  } {
    return this.store.oauth.createApp(input);
  }

  /** Issues a token to an application, for a user (or for the application itself when `userId` is null). */
  issueToken(input: { applicationId: string; userId: string | null; scopes: string[] }): {
    token: AccessToken;
    secret: string;
  } {
    return this.store.oauth.createToken(input);
  }

  /** A token of the server's own application (the one the CLI and the UI act through). */
  issueBuiltinToken(userId: string, scopes: string[]): { token: AccessToken; secret: string } {
    return this.issueToken({ applicationId: this.store.oauth.builtinApp().id, userId, scopes });
  }

  /** Signs a user in on the authorization pages: a session (its secret goes in the cookie), and the sign-in recorded. */
  signIn(userId: string, from: { ip: string | null; userAgent: string | null; ttlMs: number }): { secret: string } {
    return this.store.transaction(() => {
      const { secret } = this.store.oauth.createSession({ userId, ...from });
      this.store.users.recordSignIn(userId);
      return { secret };
    });
  }

  signOut(sessionId: string): void {
    this.store.oauth.deleteSession(sessionId);
  }

  /** An authorization code for an application the user allowed; returns the code (kept only as a hash). */
  grantCode(input: NewAccessGrant): string {
    return this.store.oauth.createGrant(input);
  }

  /**
   * Exchanges a code (already checked against its client, redirect URI and expiry) for a token. A code used before
   * is a replay: the tokens it gave are revoked and null is returned; so it is when its user is gone.
   */
  redeemGrant(grant: AccessGrant, applicationId: string): { token: AccessToken; secret: string } | null {
    if (!this.store.oauth.useGrant(grant.id)) {
      this.store.oauth.revokeTokensOfGrant(grant.id);
      return null;
    }
    const user = this.store.users.byId(grant.userId);
    if (!user) return null;
    return this.store.oauth.createToken({ applicationId, userId: user.id, scopes: grant.scopes, grantId: grant.id });
  }

  revokeToken(tokenId: string): void {
    this.store.oauth.revokeToken(tokenId);
  }
}
