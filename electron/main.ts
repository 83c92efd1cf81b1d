import path from 'node:path';
import {
  app,
  BrowserWindow,
  clipboard,
  dialog,
  ipcMain,
  Menu,
  nativeImage,
  Notification,
  safeStorage,
  shell,
  Tray,
  type IpcMainInvokeEvent,
} from 'electron';
import { DEFAULT_PORTS, resolveConfig, startHomeport, type Homeport } from '../server/index.ts';
import { appMenuTemplate } from './app-menu.ts';
import { IpcChannel, isTrustedSender, NOTIFICATION_LIMITS } from './ipc-channels.ts';
import { isExternalWebUrl, permissionAllowed, staysInApp } from './navigation-policy.ts';
import { movedPortsMessage, startOnFreePorts, type DesktopPorts } from './ports.ts';
import { revealWindow } from './reveal-window.ts';
import { showSignInWindow } from './sign-in-window.ts';
import { NO_KEYCHAIN_NOTICE, SocialTokenStore } from './social-tokens.ts';

// The main process only starts Homeport (the same function the CLI and the tests call) and shows it.
let homeport: Homeport | null = null;
let mainWindow: BrowserWindow | null = null;
let tray: Tray | null = null;
let stopped = false;

const appRoot = app.getAppPath();
const iconPath = path.join(appRoot, 'resources', 'icon.png');

function handle(channel: IpcChannel, fn: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void {
  ipcMain.handle(channel, (event, ...args) => {
    const fromOurWindow = mainWindow !== null && BrowserWindow.fromWebContents(event.sender) === mainWindow;
    if (!homeport || !fromOurWindow || !isTrustedSender(event.senderFrame?.url ?? '', homeport.httpUrl)) {
      throw new Error('refused: not Homeport’s own window');
    }
    return fn(event, ...args);
  });
}

function registerIpc(): void {
  // While the event-log admin keeps the public default password, this session may only change it.
  handle(IpcChannel.GetUiToken, () => homeport!.mintDesktopToken());
  handle(IpcChannel.GetListeners, () => homeport!.listeners.map((l) => ({ name: l.name, url: l.url })));
  handle(IpcChannel.CopyText, (_e, text) => clipboard.writeText(String(text)));
  // New social notifications while the window is in the background: the system's notification, which brings
  // the window back when clicked.
  handle(IpcChannel.Notify, (event, title, body) => {
    if (!Notification.isSupported()) return;
    const notice = new Notification({
      title: String(title).slice(0, NOTIFICATION_LIMITS.title),
      body: String(body).slice(0, NOTIFICATION_LIMITS.body),
    });
    notice.on('click', () => {
      const window = BrowserWindow.fromWebContents(event.sender);
      window?.show();
      window?.focus();
    });
    notice.show();
  });
  // The social client signing in to another server, and its tokens (sealed with the system's keychain).
  handle(IpcChannel.Authorize, (_e, authorizeUrl, redirectUri) =>
    showSignInWindow(mainWindow!, String(authorizeUrl), String(redirectUri), homeport!.httpUrl),
  );
  const tokens = new SocialTokenStore(path.join(app.getPath('userData'), 'social-tokens.json'), {
    available: () => safeStorage.isEncryptionAvailable(),
    seal: (plain) => safeStorage.encryptString(plain),
    open: (sealed) => safeStorage.decryptString(sealed),
  });
  handle(IpcChannel.LoadSocialToken, (_e, server) => tokens.load(String(server)));
  let toldNoKeychain = false;
  handle(IpcChannel.SaveSocialToken, (_e, server, token) => {
    const outcome = tokens.save(String(server), token === null ? null : String(token));
    if (outcome === 'memory-only' && !toldNoKeychain) {
      toldNoKeychain = true;
      void dialog.showMessageBox({
        type: 'warning',
        title: 'Homeport',
        message: 'No keychain',
        detail: NO_KEYCHAIN_NOTICE,
      });
    }
  });
}

function createWindow(url: string): void {
  mainWindow = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'Homeport',
    icon: iconPath,
    webPreferences: {
      preload: path.join(import.meta.dirname, 'preload.cjs'),
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      // A console in the signed-in window would run script with its tokens: development runs only.
      devTools: !app.isPackaged,
    },
  });
  const origin = new URL(url).origin;
  const contents = mainWindow.webContents;
  // Links to anywhere else open in the system browser (web links only), never inside the app window.
  contents.setWindowOpenHandler(({ url: target }) => {
    if (isExternalWebUrl(target)) void shell.openExternal(target);
    return { action: 'deny' };
  });
  const keepInApp = (event: Electron.Event, target: string) => {
    if (staysInApp(target, origin)) return;
    event.preventDefault();
    if (isExternalWebUrl(target)) void shell.openExternal(target);
  };
  contents.on('will-navigate', keepInApp);
  contents.on('will-redirect', keepInApp);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // Camera, microphone, location and the rest are refused; notifications and clipboard writes for our pages only.
  contents.session.setPermissionRequestHandler((wc, permission, callback) =>
    callback(permissionAllowed(permission, wc.getURL(), origin)),
  );
  contents.session.setPermissionCheckHandler((_wc, permission, requestingOrigin) =>
    permissionAllowed(permission, requestingOrigin, origin),
  );
  mainWindow.on('closed', () => {
    mainWindow = null;
  });
  void mainWindow.loadURL(url);
}

function createTray(hp: Homeport): void {
  tray = new Tray(nativeImage.createFromPath(iconPath).resize({ width: 16, height: 16 }));
  tray.setToolTip('Homeport');
  const listenerItems = hp.listeners.map((l) => ({
    label: `${l.name}: ${l.url}`,
    click: () => clipboard.writeText(l.url),
  }));
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { label: 'Open Homeport', click: showWindow },
      { type: 'separator' },
      { label: 'Listeners (click to copy)', enabled: false },
      ...listenerItems,
      { type: 'separator' },
      { label: 'Quit', click: () => app.quit() },
    ]),
  );
}

/** The window back in front (a second launch, the tray): shown, restored, or opened again if it was closed. */
function showWindow(): void {
  revealWindow(mainWindow, () => {
    if (homeport) createWindow(`${homeport.httpUrl}/ui/eventlog`);
  });
}

async function start(): Promise<void> {
  Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(process.platform, app.isPackaged)));
  const dataDir = app.getPath('userData');
  // The documented ports where they are free; others where another program (or server) holds them.
  const preferred: DesktopPorts = {
    httpPort: DEFAULT_PORTS.http,
    tcpPort: DEFAULT_PORTS.tcp,
    tcpTlsPort: DEFAULT_PORTS.tcpTls,
    grpcPort: DEFAULT_PORTS.grpc,
  };
  let portsNote: string | null = null;
  try {
    const { started, ports, moved } = await startOnFreePorts(resolveConfig({ dataDir }).host, preferred, (chosen) =>
      startHomeport({
        dataDir,
        rendererDir: path.join(appRoot, 'renderer', 'dist'),
        logToConsole: !app.isPackaged,
        ...chosen,
      }),
    );
    homeport = started;
    portsNote = movedPortsMessage(preferred, ports, moved);
  } catch (err) {
    dialog.showErrorBox('Homeport could not start', (err as Error).message);
    stopped = true;
    app.quit();
    return;
  }
  registerIpc();
  createTray(homeport);
  createWindow(`${homeport.httpUrl}/ui/eventlog`);
  if (portsNote)
    void dialog.showMessageBox(mainWindow!, {
      type: 'info',
      title: 'Homeport',
      message: 'Some ports were in use',
      detail: portsNote,
    });
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  // A second launch while this one runs (perhaps only in the tray) brings its window back.
  app.on('second-instance', showWindow);
  app.on('window-all-closed', () => {
    // Keep serving from the tray: the servers are the point, the window is a view onto them.
  });
  app.on('activate', showWindow);
  app.on('before-quit', (event) => {
    if (stopped || !homeport) return;
    event.preventDefault();
    stopped = true;
    void homeport.close().finally(() => {
      tray?.destroy();
      app.quit();
    });
  });
  void app.whenReady().then(start);
}
