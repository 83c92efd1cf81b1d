/** The social server's public face (Mastodon client API, OAuth, streaming, federation). */
export { openSocial, type Social, type OpenSocialOptions } from './social.ts';
