import { describe, expect, it } from 'vitest';
import { isExternalWebUrl, isOAuthReturn, permissionAllowed, staysInApp } from './navigation-policy.ts';

const APP = 'http://127.0.0.1:3000';

describe('desktop window policy', () => {
  it('hands only http(s) links to the system browser', () => {
    for (const url of ['https://example.org/a', 'http://example.org']) expect(isExternalWebUrl(url), url).toBe(true);
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://host/share',
      'ms-msdt:/id',
      'vscode://x',
      'data:text/html,x',
      'not a url',
      'https://',
    ]) {
      expect(isExternalWebUrl(url), url).toBe(false);
    }
  });

  it('keeps navigations and redirects of the window on its own origin', () => {
    expect(staysInApp('http://127.0.0.1:3000/ui/server', APP)).toBe(true);
    for (const url of ['http://127.0.0.1:3001/', 'http://localhost:3000/', 'https://evil.example/', 'file:///x'])
      expect(staysInApp(url, APP), url).toBe(false);
  });

  it('grants notifications and clipboard writes to its own pages and nothing else', () => {
    expect(permissionAllowed('notifications', `${APP}/ui/social`, APP)).toBe(true);
    expect(permissionAllowed('clipboard-sanitized-write', `${APP}/ui`, APP)).toBe(true);
    for (const p of ['media', 'geolocation', 'midi', 'hid', 'serial', 'usb', 'openExternal', 'clipboard-read'])
      expect(permissionAllowed(p, `${APP}/ui`, APP), p).toBe(false);
    expect(permissionAllowed('notifications', 'https://evil.example/', APP)).toBe(false);
  });

  it('hands a sign-in window’s return to the client only when it comes back to our own redirect address', () => {
    const redirect = `${APP}/ui/social`;
    expect(isOAuthReturn(`${APP}/ui/social?code=abc&state=x`, redirect, APP)).toBe(true);
    expect(isOAuthReturn(`${APP}/ui/social?error=access_denied`, redirect, APP)).toBe(true);
    for (const url of [
      'https://mastodon.example/oauth/authorize?x=1',
      `${APP}/ui/eventlog?code=abc`,
      'http://127.0.0.1:3001/ui/social?code=abc',
      'not a url',
    ]) {
      expect(isOAuthReturn(url, redirect, APP), url).toBe(false);
    }
    // A redirect address naming another origin is never ours to catch.
    expect(isOAuthReturn('https://evil.example/ui/social?code=abc', 'https://evil.example/ui/social', APP)).toBe(false);
  });
});
