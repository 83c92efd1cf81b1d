import { BrowserWindow, shell } from 'electron';
import { isExternalWebUrl, isOAuthReturn } from './navigation-policy.ts';

/**
 * Another server's OAuth page, shown in a window of its own (the app window never leaves Homeport): resolves
 * with the address the server sends the user back to, caught before it loads, or null when the user closes
 * the window. Its own session partition, so the other server's cookies never mix with Homeport's.
 */
export function showSignInWindow(
  parent: BrowserWindow,
  authorizeUrl: string,
  redirectUri: string,
  appOrigin: string,
): Promise<string | null> {
  if (!isExternalWebUrl(authorizeUrl)) return Promise.reject(new Error('refused: not a web address'));
  return new Promise((resolve) => {
    const window = new BrowserWindow({
      parent,
      modal: true,
      width: 520,
      height: 720,
      title: 'Sign in',
      webPreferences: {
        partition: 'persist:social-sign-in',
        contextIsolation: true,
        nodeIntegration: false,
        sandbox: true,
      },
    });
    let settled = false;
    const finish = (answer: string | null) => {
      if (settled) return;
      settled = true;
      resolve(answer);
      if (!window.isDestroyed()) window.close();
    };
    const catchReturn = (event: Electron.Event, target: string) => {
      if (!isOAuthReturn(target, redirectUri, appOrigin)) return;
      event.preventDefault();
      finish(target);
    };
    window.webContents.on('will-redirect', catchReturn);
    window.webContents.on('will-navigate', catchReturn);
    window.webContents.setWindowOpenHandler(({ url }) => {
      if (isExternalWebUrl(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
    window.webContents.session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
    window.on('closed', () => finish(null));
    void window.loadURL(authorizeUrl);
  });
}
