import { contextBridge, ipcRenderer } from 'electron';
import { IpcChannel } from './ipc-channels.ts';

// The renderer gets exactly this narrow API (window.homeport); no Node, no raw ipcRenderer.
contextBridge.exposeInMainWorld('homeport', {
  getUiToken: (): Promise<string> => ipcRenderer.invoke(IpcChannel.GetUiToken),
  getListeners: (): Promise<{ name: string; url: string }[]> => ipcRenderer.invoke(IpcChannel.GetListeners),
  copyText: (text: string): Promise<void> => ipcRenderer.invoke(IpcChannel.CopyText, String(text)),
  notify: (title: string, body: string): Promise<void> =>
    ipcRenderer.invoke(IpcChannel.Notify, String(title), String(body)),
  authorize: (authorizeUrl: string, redirectUri: string): Promise<string | null> =>
    ipcRenderer.invoke(IpcChannel.Authorize, String(authorizeUrl), String(redirectUri)),
  loadSocialToken: (server: string): Promise<string | null> =>
    ipcRenderer.invoke(IpcChannel.LoadSocialToken, String(server)),
  saveSocialToken: (server: string, token: string | null): Promise<void> =>
    ipcRenderer.invoke(IpcChannel.SaveSocialToken, String(server), token === null ? null : String(token)),
});
