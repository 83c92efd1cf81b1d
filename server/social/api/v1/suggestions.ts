// https://docs.joinmastodon.org/methods/suggestions/
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { auth, currentUser, parseParams, pathId, requestParams, zInt } from '../../http/index.ts';
import type { SuggestionSource } from '../../store/index.ts';

const limitSchema = z.object({ limit: zInt.optional() });

/** The deprecated single `source` of a Suggestion, from its first source (as Mastodon's serializer). */
function legacySource(source: SuggestionSource): 'staff' | 'past_interactions' | 'global' {
  if (source === 'featured') return 'staff';
  if (source === 'most_interactions') return 'past_interactions';
  return 'global';
}

export function suggestionRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const limitOf = (params: Record<string, unknown>, fallback: number) =>
    Math.min(Math.max(parseParams(limitSchema, params).limit ?? fallback, 1), 80);

  app.get('/api/v2/suggestions', { config: { auth: auth.user('read') } }, async (req) => {
    const { account } = currentUser(req);
    const found = ctx.suggestions.suggest(account, limitOf(requestParams(req), 40));
    const json = new Map(ctx.presenter.present(found.map((s) => s.account)).map((a) => [a.id, a]));
    return found.map((s) => ({
      source: legacySource(s.sources[0]),
      sources: s.sources,
      account: json.get(s.account.id),
    }));
  });

  app.get('/api/v1/suggestions', { config: { auth: auth.user('read'), deprecated: '2021-05-16' } }, async (req) => {
    const { account } = currentUser(req);
    return ctx.presenter.present(
      ctx.suggestions.suggest(account, limitOf(requestParams(req), 40)).map((s) => s.account),
    );
  });

  app.delete('/api/v1/suggestions/:account_id', { config: { auth: auth.user('read') } }, async (req) => {
    const { account } = currentUser(req);
    const target = ctx.store.accounts.byId(pathId(req, 'account_id'));
    if (target) ctx.suggestions.dismiss(account, target.id);
    return {};
  });
}
