// Human-readable pages the instance entity links to (configuration.urls.about / privacy_policy).
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../context.ts';
import { auth } from '../http/index.ts';
import { PAGE_CSP } from '../oauth/index.ts';
import { escapeHtml as e, formatPlainText } from '../text/index.ts';

export function aboutRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const page = (
    title: string,
    body: string,
  ) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title><style>:root{color-scheme:light dark;font-family:system-ui,sans-serif}body{max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5}</style></head><body>${body}</body></html>`;

  app.get('/about', { config: { auth: auth.public(), publicCache: true } }, async (_req, reply) => {
    const s = ctx.store.settings;
    const rules = ctx.store.rules.list();
    const body = `<h1>${e(s.owner('title'))}</h1><p>${e(ctx.urls.domain)}</p>${formatPlainText(s.owner('description'))}${formatPlainText(s.owner('extended_description'))}
${rules.length ? `<h2>Rules</h2><ol>${rules.map((r) => `<li>${e(r.text)}${r.hint ? `<br><small>${e(r.hint)}</small>` : ''}</li>`).join('')}</ol>` : ''}
<p><small>Runs Homeport, compatible with Mastodon apps.</small></p>`;
    return reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', PAGE_CSP)
      .send(page(s.owner('title'), body));
  });

  app.get('/privacy-policy', { config: { auth: auth.public(), publicCache: true } }, async (_req, reply) => {
    const s = ctx.store.settings;
    const text =
      s.owner('privacy_policy') ||
      `${s.owner('title')} is a personal server. It stores what you post and the data your account needs, shares public posts with other servers you interact with, and does not sell or analyse your data.`;
    return reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', PAGE_CSP)
      .send(page(`Privacy policy · ${s.owner('title')}`, `<h1>Privacy policy</h1>${formatPlainText(text)}`));
  });
}
