import type { AccessToken, OAuthApp, SocialStore } from '../store/index.ts';

/** OAuth client applications and the access tokens issued to them. */
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
}
