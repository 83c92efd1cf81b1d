// https://docs.joinmastodon.org/methods/instance/
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { termsVersions } from '../../domain/index.ts';
import type { SocialContext } from '../../context.ts';
import { isoTime, serializeInstanceV1, serializeRules } from '../../entities/index.ts';
import { notFound } from '../../errors.ts';
import { auth, parseParams, requestParams, zString } from '../../http/index.ts';
import { formatPlainText, languageList } from '../../text/index.ts';

const WEEK_MS = 7 * 24 * 3600 * 1000;

export function instanceRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const cached = { auth: auth.public(), publicCache: true } as const;

  app.get('/api/v1/instance', { config: { ...cached, deprecated: '2022-11-14' } }, async () =>
    serializeInstanceV1(ctx),
  );

  app.get('/api/v1/instance/rules', { config: cached }, async () => serializeRules(ctx));

  app.get('/api/v1/instance/peers', { config: cached }, async () => ctx.store.accounts.knownDomains());

  // Routed by Mastodon though undocumented (the web UI's server picker): known servers starting with `q`.
  app.get('/api/v1/peers/search', { config: { auth: auth.public() } }, async (req) => {
    const { q } = parseParams(z.object({ q: zString.optional() }), requestParams(req));
    if (!q?.trim()) return [];
    let prefix = q.trim().toLowerCase();
    try {
      prefix = new URL(`https://${prefix}`).hostname || prefix;
    } catch {
      // not a host name: matched as written
    }
    return ctx.store.accounts.domainsStartingWith(prefix.slice(0, 253), 10);
  });

  // Twelve weeks of local activity, newest first; all numbers as strings, as Mastodon sends them.
  app.get('/api/v1/instance/activity', { config: cached }, async () => {
    const now = ctx.store.now();
    const weekStart = now - (now % WEEK_MS);
    return Array.from({ length: 12 }, (_, i) => {
      const from = weekStart - i * WEEK_MS;
      const counts = ctx.store.instanceStats.activity(from, from + WEEK_MS);
      return {
        week: String(Math.floor(from / 1000)),
        statuses: String(counts.statuses),
        logins: String(counts.logins),
        registrations: String(counts.registrations),
      };
    });
  });

  app.get('/api/v1/instance/languages', { config: cached }, async () => languageList());

  app.get('/api/v1/instance/translation_languages', { config: cached }, async () => ({}));

  const textPage = (key: 'extended_description' | 'privacy_policy', fallback: string) => {
    const content = ctx.store.settings.owner(key) || fallback;
    const updatedAt = ctx.store.settings.get(`${key}_updated_at`);
    // Mastodon gives null for an extended description never set, and its default policy's date for the privacy policy.
    if (updatedAt === null && key === 'extended_description')
      return { updated_at: null, content: content ? formatPlainText(content) : '' };
    return {
      updated_at: isoTime(Number(updatedAt ?? ctx.store.settings.get('created_at') ?? ctx.store.now())),
      content: content ? formatPlainText(content) : '',
    };
  };

  app.get('/api/v1/instance/extended_description', { config: cached }, async () =>
    textPage('extended_description', ''),
  );

  app.get('/api/v1/instance/privacy_policy', { config: cached }, async () =>
    textPage(
      'privacy_policy',
      `${ctx.store.settings.owner('title')} is a personal server. It stores what you post and the data your account needs, shares public posts with other servers you interact with, and does not sell or analyse your data.`,
    ),
  );

  /** TermsOfService: a published version; 404 while none is (as Mastodon). */
  const terms = (date: string | null) => {
    const versions = termsVersions(ctx.store);
    const today = new Date(ctx.store.now()).toISOString().slice(0, 10);
    const index =
      date === null
        ? versions.findLastIndex((v) => v.effectiveDate <= today)
        : versions.findIndex((v) => v.effectiveDate === date);
    if (index < 0) throw notFound();
    const version = versions[index];
    return {
      effective_date: version.effectiveDate,
      effective: version.effectiveDate <= today,
      content: formatPlainText(version.content),
      succeeded_by: versions[index + 1]?.effectiveDate ?? null,
    };
  };
  app.get('/api/v1/instance/terms_of_service', { config: cached }, async () => terms(null));
  app.get<{ Params: { date: string } }>('/api/v1/instance/terms_of_service/:date', { config: cached }, async (req) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(req.params.date)) throw notFound();
    return terms(req.params.date);
  });

  /** The server's moderated domains; shown to signed-in, confirmed, approved users. */
  app.get('/api/v1/instance/domain_blocks', { config: { auth: auth.user() } }, async () => {
    const rows = ctx.store.moderation.publicDomainBlocks();
    return rows.map((r) => ({
      domain: r.domain,
      digest: crypto.createHash('sha256').update(r.domain).digest('hex'),
      severity: r.severity,
      comment: r.publicComment,
    }));
  });
}
