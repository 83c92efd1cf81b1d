/** The sign-in session cookie of the server's own pages, and the CSRF cookie of its sign-in form. */
export const SESSION_COOKIE = 'homeport_session';
export const SIGN_IN_CSRF_COOKIE = 'homeport_csrf';
