/**
 * What the desktop window may do beyond its own pages. Kept free of Electron imports so it is unit-tested.
 */

/** Only web links leave the app, to the system browser: never file:, javascript:, smb:, custom app schemes… */
export function isExternalWebUrl(target: string): boolean {
  try {
    const url = new URL(target);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A navigation or redirect of the window itself stays on Homeport's own origin. */
export function staysInApp(target: string, appOrigin: string): boolean {
  try {
    return new URL(target).origin === new URL(appOrigin).origin;
  } catch {
    return false;
  }
}

/**
 * Permissions the renderer may have: desktop notifications (the social client's alerts) and writing to the
 * clipboard (copy buttons), for Homeport's own origin only. Camera, microphone, location, MIDI, USB, HID,
 * serial and everything else are refused.
 */
const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['notifications', 'clipboard-sanitized-write']);

export function permissionAllowed(permission: string, requestingUrl: string, appOrigin: string): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && staysInApp(requestingUrl, appOrigin);
}

/**
 * Whether a sign-in window's navigation is the server sending the user back to the social client (the
 * registered redirect address on Homeport's own origin): that answer is handed to the client, not loaded.
 */
export function isOAuthReturn(target: string, redirectUri: string, appOrigin: string): boolean {
  try {
    const url = new URL(target);
    const expected = new URL(redirectUri);
    return (
      url.origin === new URL(appOrigin).origin && url.origin === expected.origin && url.pathname === expected.pathname
    );
  } catch {
    return false;
  }
}
