// https://docs.joinmastodon.org/methods/statuses/#interaction_policy
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { auth, currentUser, parseParams, pathId, requestParams } from '../../../http/index.ts';
import { UPDATE_METHODS } from '../../update-methods.ts';

const schema = z.object({ quote_approval_policy: z.enum(['public', 'followers', 'nobody']) });

/** Who may quote an own post, changed after posting (Mastodon 4.5). */
export function statusInteractionPolicyRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/statuses/:id/interaction_policy',
    config: { auth: auth.user('write:statuses') },
    handler: async (req) => {
      const { account } = currentUser(req);
      const { quote_approval_policy: policy } = parseParams(schema, requestParams(req));
      return ctx.statusPresenter.one(ctx.statuses.setQuotePolicy(account, pathId(req), policy), account);
    },
  });
}
