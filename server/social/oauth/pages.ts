import { escapeHtml as e } from '../text/index.ts';

/*
 * The few HTML pages of the social server: sign-in, consent, the out-of-band code, e-mail confirmation.
 * Plain server-rendered HTML with inline styles; no scripts, so a strict Content-Security-Policy applies.
 */

export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

function layout(title: string, serverTitle: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(title)} · ${e(serverTitle)}</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
  main { width: min(26rem, 92vw); padding: 2rem; border: 1px solid color-mix(in srgb, CanvasText 15%, transparent); border-radius: 12px; }
  h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
  .server { margin: 0 0 1.5rem; opacity: .7; font-size: .9rem; }
  label { display: block; margin: 1rem 0 .3rem; font-weight: 600; font-size: .9rem; }
  input[type=text], input[type=email], input[type=password] { box-sizing: border-box; width: 100%; padding: .6rem .7rem; font: inherit; border-radius: 8px; border: 1px solid color-mix(in srgb, CanvasText 30%, transparent); background: Field; color: FieldText; }
  .actions { display: flex; gap: .75rem; margin-top: 1.5rem; }
  button { flex: 1; padding: .65rem 1rem; font: inherit; font-weight: 600; border-radius: 8px; border: 1px solid transparent; cursor: pointer; }
  button.primary { background: #5b5bd6; color: #fff; }
  button.secondary { background: transparent; color: inherit; border-color: color-mix(in srgb, CanvasText 30%, transparent); }
  .error { padding: .6rem .8rem; border-radius: 8px; background: color-mix(in srgb, #d33 18%, Canvas); margin-bottom: 1rem; }
  ul.scopes { padding-left: 1.2rem; line-height: 1.6; }
  code.auth-code { display: block; padding: .8rem; font-size: 1.05rem; word-break: break-all; border-radius: 8px; background: color-mix(in srgb, CanvasText 8%, Canvas); user-select: all; }
  small { opacity: .75; }
</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

function hidden(fields: Record<string, string | null | undefined>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => `<input type="hidden" name="${e(k)}" value="${e(v!)}">`)
    .join('\n');
}

export function signInPage(input: {
  serverTitle: string;
  domain: string;
  appName: string | null;
  returnTo: string;
  csrf: string;
  login?: string;
  error?: string;
}): string {
  return layout(
    'Sign in',
    input.serverTitle,
    `<h1>Sign in</h1>
<p class="server">${e(input.serverTitle)} · ${e(input.domain)}${input.appName ? ` · to continue to <strong>${e(input.appName)}</strong>` : ''}</p>
${input.error ? `<div class="error" role="alert">${e(input.error)}</div>` : ''}
<form method="post" action="/auth/sign_in">
${hidden({ return_to: input.returnTo, csrf_token: input.csrf })}
<label for="login">Username or e-mail address</label>
<input id="login" name="login" type="text" autocomplete="username" required autofocus value="${e(input.login ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`,
  );
}

const SCOPE_TEXT: Record<string, string> = {
  read: 'Read all your account data',
  write: 'Modify all your account data',
  follow: 'Modify account relationships',
  push: 'Receive your push notifications',
  profile: 'Read only your basic account information',
  'admin:read': 'Read all data on the server',
  'admin:write': 'Modify all data on the server',
};

export function describeScope(scope: string): string {
  if (SCOPE_TEXT[scope]) return SCOPE_TEXT[scope];
  const [kind, ...rest] = scope.split(':');
  const subject = rest.join(' ').replace(/_/g, ' ');
  if (kind === 'read') return `Read your ${subject}`;
  if (kind === 'write') return `Modify your ${subject}`;
  if (kind === 'admin') return `Administration: ${subject}`;
  return scope;
}

export function consentPage(input: {
  serverTitle: string;
  domain: string;
  appName: string;
  appWebsite: string | null;
  username: string;
  scopes: string[];
  fields: Record<string, string | null>;
  csrf: string;
}): string {
  return layout(
    'Authorize application',
    input.serverTitle,
    `<h1>Authorize ${e(input.appName)}?</h1>
<p class="server">Signed in as <strong>@${e(input.username)}</strong> on ${e(input.domain)}</p>
${input.appWebsite ? `<p><small>${e(input.appWebsite)}</small></p>` : ''}
<p>This application asks for permission to:</p>
<ul class="scopes">${input.scopes.map((s) => `<li data-scope="${e(s)}">${e(describeScope(s))} <small>(${e(s)})</small></li>`).join('')}</ul>
<form method="post" action="/oauth/authorize">
${hidden({ ...input.fields, csrf_token: input.csrf })}
<div class="actions">
<button class="secondary" type="submit" name="decision" value="deny">Deny</button>
<button class="primary" type="submit" name="decision" value="authorize">Authorize</button>
</div>
</form>
<form method="post" action="/auth/sign_out">${hidden({ csrf_token: input.csrf, return_to: '' })}<p><small>Not you? <button class="secondary" type="submit" style="flex:none;padding:.2rem .6rem">Sign out</button></small></p></form>`,
  );
}

export function codePage(input: { serverTitle: string; appName: string; code: string }): string {
  return layout(
    'Authorization code',
    input.serverTitle,
    `<h1>Authorization code</h1>
<p class="server">Copy this code and paste it into ${e(input.appName)}.</p>
<code class="auth-code" id="authorization-code">${e(input.code)}</code>`,
  );
}

export function messagePage(input: { serverTitle: string; title: string; message: string; error?: boolean }): string {
  return layout(
    input.title,
    input.serverTitle,
    `<h1>${e(input.title)}</h1>${input.error ? `<div class="error" role="alert">${e(input.message)}</div>` : `<p>${e(input.message)}</p>`}`,
  );
}
