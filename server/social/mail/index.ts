// The public face of server/social/mail/: what code outside the folder uses of it.
export { Mailer } from './mailer.ts';
export { confirmationEmail } from './templates.ts';
