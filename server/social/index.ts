/** The social server's public face (Mastodon client API, OAuth, streaming, federation). */
export { openSocial, openSocialAdmin, type Social, type SocialAdminHandle, type OpenSocialOptions } from './social.ts';
export { SocialAdmin, AdminError, USER_ACTIONS, type UserAction } from './admin.ts';
export { OWNER_SETTINGS, REGISTRATION_MODES, type RegistrationMode, type OutboxEmail } from './store/index.ts';
export { ValidationFailure } from './errors.ts';
export { socialUiRoutes, type SelfCheckReport } from './ui-routes.ts';
