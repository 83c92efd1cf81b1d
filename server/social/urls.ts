/**
 * Every absolute URL the social server hands out, derived from its public domain. The domain may be
 * set after listening (a server started on port 0 learns its port only then).
 */
export class SocialUrls {
  domain: string;
  secure: boolean;

  constructor(domain: string, secure = false) {
    this.domain = domain;
    this.secure = secure;
  }

  get base(): string {
    return `${this.secure ? 'https' : 'http'}://${this.domain}`;
  }

  /** Host without port, e.g. for the sender address of e-mails. */
  get hostname(): string {
    return this.domain.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  }

  /** A streaming base on another host (wss://host), when configured. */
  separateStreaming: string | null = null;

  /** Streaming base (no path), as instance.configuration.urls.streaming. */
  get streaming(): string {
    return this.separateStreaming ?? `${this.secure ? 'wss' : 'ws'}://${this.domain}`;
  }

  absolute(pathAndQuery: string): string {
    return `${this.base}${pathAndQuery.startsWith('/') ? '' : '/'}${pathAndQuery}`;
  }

  accountUri(username: string): string {
    return `${this.base}/users/${encodeURIComponent(username)}`;
  }

  profileUrl(username: string): string {
    return `${this.base}/@${encodeURIComponent(username)}`;
  }

  /** ActivityPub id of a local status (a reblog's is its Announce activity). */
  statusUri(username: string, id: string, reblog = false): string {
    return `${this.accountUri(username)}/statuses/${id}${reblog ? '/activity' : ''}`;
  }

  /** HTML permalink of a local status. */
  statusUrl(username: string, id: string): string {
    return `${this.profileUrl(username)}/${id}`;
  }

  tagUrl(name: string): string {
    return `${this.base}/tags/${encodeURIComponent(name)}`;
  }

  /** A file under the media directory. */
  media(relativePath: string): string {
    return `${this.base}/system/${relativePath.split('/').map(encodeURIComponent).join('/')}`;
  }

  get missingAvatar(): string {
    return `${this.base}/avatars/original/missing.png`;
  }

  get missingHeader(): string {
    return `${this.base}/headers/original/missing.png`;
  }

  confirmation(token: string): string {
    return `${this.base}/auth/confirmation?confirmation_token=${encodeURIComponent(token)}`;
  }
}
