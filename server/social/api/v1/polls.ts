// https://docs.joinmastodon.org/methods/polls/
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { serializePoll } from '../../entities/index.ts';
import { auth, currentUser, viewer, parseParams, pathId, requestParams, zInt, zList } from '../../http/index.ts';
import type { Account, PollRow } from '../../store/index.ts';

export function pollRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const present = (poll: PollRow, me: Account | null) =>
    serializePoll(
      poll,
      ctx.store.polls.tallies([poll]).get(poll.id)!,
      me ? { id: me.id, ownVotes: ctx.store.polls.ownVotes(me.id, [poll.id]).get(poll.id) ?? [] } : null,
      ctx.store.now(),
    );

  app.get('/api/v1/polls/:id', { config: { auth: auth.optional('read:statuses') } }, async (req) => {
    const me = viewer(req);
    return present(ctx.polls.readable(me, pathId(req)), me);
  });

  app.post('/api/v1/polls/:id/votes', { config: { auth: auth.user('write:statuses') } }, async (req) => {
    const { account } = currentUser(req);
    const { choices } = parseParams(z.object({ choices: zList(zInt, 20) }), requestParams(req));
    return present(ctx.polls.vote(account, pathId(req), choices), account);
  });
}
