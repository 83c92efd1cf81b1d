/** Every IPC channel between the main process and the renderer: one list, nothing else is exposed. */
export const IpcChannel = {
  GetUiToken: 'homeport:get-ui-token',
  GetListeners: 'homeport:get-listeners',
  CopyText: 'homeport:copy-text',
  Notify: 'homeport:notify',
  Authorize: 'homeport:authorize',
  LoadSocialToken: 'homeport:load-social-token',
  SaveSocialToken: 'homeport:save-social-token',
} as const;

/** What a desktop notification may carry (the renderer's text is cut to these lengths). */
export const NOTIFICATION_LIMITS = { title: 200, body: 500 } as const;
export type IpcChannel = (typeof IpcChannel)[keyof typeof IpcChannel];

/**
 * Only pages served by our own HTTP server may call the main process; anything else that ends up in a
 * window (a navigated-away page, an iframe) is refused.
 */
export function isTrustedSender(senderUrl: string, appOrigin: string): boolean {
  try {
    return new URL(senderUrl).origin === new URL(appOrigin).origin;
  } catch {
    return false;
  }
}
