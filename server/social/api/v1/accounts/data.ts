// Homeport extension: Mastodon has these as web settings (Settings → Import and export), with the same CSV files.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { DATA_KINDS, type DataKind } from '../../../domain/account-data.ts';
import { ApiError, notFound } from '../../../errors.ts';
import { auth, currentUser } from '../../../http/auth.ts';
import { parseParams, requestParams, zString } from '../../../http/params.ts';
import type { Account } from '../../../store/index.ts';
import { accountByAddress } from './accounts.ts';

const importSchema = z.object({ type: z.enum(DATA_KINDS), data: zString, mode: z.enum(['merge', 'overwrite']).optional() });

/** CSV exports and imports and the account archive in Mastodon's formats, so an account can move between Mastodon servers and Homeport. */
export function accountDataRoutes(app: FastifyInstance, ctx: SocialContext): void {
  // Mastodon's "Request your archive", made while it downloads (Mastodon mails a link to one it made in the background).
  app.get('/api/v1/homeport/exports/archive.zip', { config: { auth: auth.user('read') } }, async (req, reply) => {
    const { account } = currentUser(req);
    if (!ctx.federation) throw new ApiError(503, 'The archive holds ActivityPub documents, and federation is not running');
    const archive = ctx.accountArchive.stream(account, ctx.federation.archiveDocuments);
    const stamp = new Date(ctx.store.now()).toISOString().replace(/\D/g, '').slice(0, 14);
    reply.header('content-type', 'application/zip').header('content-disposition', `attachment; filename="archive-${stamp}-${account.username}.zip"`);
    return reply.send(archive);
  });

  app.get('/api/v1/homeport/exports/:file', { config: { auth: auth.user('read') } }, async (req, reply) => {
    const file = (req.params as { file: string }).file;
    const kind = file.replace(/\.csv$/, '') as DataKind;
    if (!file.endsWith('.csv') || !DATA_KINDS.includes(kind)) throw notFound();
    const { account } = currentUser(req);
    reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${kind}.csv"`);
    return ctx.accountData.export(account, kind);
  });

  app.post('/api/v1/homeport/imports', { config: { auth: auth.user('write') } }, async (req) => {
    const { account } = currentUser(req);
    const p = parseParams(importSchema, requestParams(req));
    // A row naming an account that cannot be looked up fails alone (the import goes on).
    const findAccount = async (address: string): Promise<Account | null> => {
      const found = await accountByAddress(ctx, address).catch(() => null);
      return found && found.id !== account.id ? found : null;
    };
    const result = await ctx.accountData.import(account, p.type, p.data, p.mode === 'overwrite', {
      account: findAccount,
      status: async (uri) => (ctx.federation ? ctx.federation.resolveStatus(uri) : null),
    });
    return { type: p.type, imported: result.imported, failed: result.failed };
  });
}
