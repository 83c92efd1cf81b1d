// The public face of server/social/oauth/: what code outside the folder uses of it.
export { PAGE_CSP } from './pages.ts';
export { OOB_REDIRECT } from './protocol.ts';
export { oauthRoutes } from './routes.ts';
