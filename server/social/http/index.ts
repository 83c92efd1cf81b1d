// The public face of server/social/http/: what code outside the folder uses of it.
export { auth, currentStaff, currentUser, presentedToken, tokenBeforeBody, tokenStillValid, viewer } from './auth.ts';
export type { RouteAuth } from './auth.ts';
export { registerSocialCors } from './cors.ts';
export { socialErrorHandler } from './errors.ts';
export { linkHeader, offsetPage, pageQuery, setLinkHeader } from './pagination.ts';
export { parseParams, pathId, requestParams, zBool, zFile, zId, zInt, zList, zString } from './params.ts';
export { SIGN_IN_RATE_LIMIT, SIGN_UP_RATE_LIMIT, registerConventions } from './plugin.ts';
