/** The social server's public face (Mastodon client API, OAuth, streaming, federation). */
export { openSocial, openSocialAdmin, type Social } from './social.ts';
export { AdminError, type SocialAdmin, type UserAction } from './admin.ts';
export { OWNER_SETTINGS, type Account } from './store/index.ts';
export { socialUiRoutes, type SelfCheckReport } from './ui-routes.ts';
export { ValidationFailure } from './errors.ts';
export {
  checkInstance,
  FederationRepository,
  formatReport,
  PublicUrlChangedError,
} from './federation/index.ts';
