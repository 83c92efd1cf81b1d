// Homeport extension: Mastodon has these only as web settings (/settings/aliases, /settings/migration).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { notFound, ValidationFailure } from '../../../errors.ts';
import { auth, currentUser, parseParams, requestParams, zString } from '../../../http/index.ts';
import type { Account } from '../../../store/index.ts';
import { accountByAddress } from '../../../domain/index.ts';
import { unlessRejected } from './accounts.ts';

/**
 * Moving an account in and out. Aliases name the accounts this one may be moved from (the old account's
 * server checks them before it follows a Move); a migration points this account to another one that names
 * it as an alias, tells its followers with Move, and can be cancelled (the redirect ends; followers stay).
 */
export function accountMigrationRoutes(app: FastifyInstance, ctx: SocialContext): void {
  /** The account a handle names; a remote one fetched afresh (its aliases decide whether a move is allowed). */
  const accountNamed = async (acct: string): Promise<Account> => {
    const account = await unlessRejected(accountByAddress(ctx, acct, { refresh: true }));
    if (!account) throw ValidationFailure.single('acct', 'ERR_INVALID', 'is not an account that can be found');
    return account;
  };
  const listed = (me: Account) => ({
    aliases: me.alsoKnownAs.map((uri) => ({ uri })),
    moved: me.movedToAccountId ? ctx.presenter.one(ctx.store.accounts.byId(me.movedToAccountId)!) : null,
  });
  const body = z.object({ acct: zString });

  app.get('/api/v1/homeport/account_migration', { config: { auth: auth.user('read:accounts') } }, async (req) =>
    listed(currentUser(req).account),
  );

  app.post(
    '/api/v1/homeport/account_migration/aliases',
    { config: { auth: auth.user('write:accounts') } },
    async (req) => {
      const { account } = currentUser(req);
      const from = await accountNamed(parseParams(body, requestParams(req)).acct);
      ctx.moves.addAlias(account, from);
      return listed(ctx.store.accounts.byId(account.id)!);
    },
  );

  app.delete(
    '/api/v1/homeport/account_migration/aliases',
    { config: { auth: auth.user('write:accounts') } },
    async (req) => {
      const { account } = currentUser(req);
      const { uri } = parseParams(z.object({ uri: zString }), requestParams(req));
      if (!account.alsoKnownAs.includes(uri)) throw notFound();
      ctx.moves.removeAlias(account, uri);
      return listed(ctx.store.accounts.byId(account.id)!);
    },
  );

  app.post('/api/v1/homeport/account_migration', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    const target = await accountNamed(parseParams(body, requestParams(req)).acct);
    ctx.moves.moveTo(account, target);
    return listed(ctx.store.accounts.byId(account.id)!);
  });

  app.delete('/api/v1/homeport/account_migration', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    ctx.moves.cancelMove(account);
    return listed(ctx.store.accounts.byId(account.id)!);
  });
}
