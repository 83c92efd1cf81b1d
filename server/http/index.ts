export { createHttpServer } from './server.ts';
export {
  registerUiApi,
  requireOwner,
  type ServerInfo,
  UI_API_PREFIX,
  type UiPrincipal,
  UiSessions,
} from './ui-api.ts';
export { allowsCrossOrigin } from './cross-origin.ts';
export { SqliteUiSessionStore } from './ui/session-store.ts';
