export { createHttpServer, type HttpServerOptions } from './server.ts';
export { registerUiApi, type UiApiOptions } from './ui-api.ts';
export { allowsCrossOrigin } from './cross-origin.ts';
