// Homeport extension: Mastodon has these as web settings (Settings → Import and export), with the same CSV files.
import fs from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { DATA_KINDS, MAX_IMPORT_BYTES, type DataKind } from '../../../domain/index.ts';
import { ApiError, notFound, ValidationFailure } from '../../../errors.ts';
import { auth, currentUser, parseParams, pathId, requestParams, zFile, zInt, zString } from '../../../http/index.ts';
import type { UploadedFile } from '../../../media/index.ts';
import type { BulkImport } from '../../../store/index.ts';

// `data`: the file uploaded as Mastodon's form does, or its text in a JSON or form body.
const importSchema = z.object({
  type: z.enum(DATA_KINDS),
  data: z.union([zFile, zString]),
  mode: z.enum(['merge', 'overwrite']).optional(),
});
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const DEFAULT_IMPORTS = 20;
const MAX_IMPORTS = 40;
/** Failed rows an import's JSON lists (all of them are in its failures.csv). */
const MAX_FAILURES_SHOWN = 100;

/** An uploaded file's text (its size is bounded by the route's upload limit); Mastodon reads imports as UTF-8. */
async function uploadedText(file: UploadedFile): Promise<string> {
  try {
    return strictUtf8.decode(await fs.promises.readFile(file.path));
  } catch {
    throw ValidationFailure.single('data', 'ERR_INVALID', 'is not UTF-8 text');
  }
}

function ownImport(ctx: SocialContext, req: FastifyRequest): BulkImport {
  const found = ctx.store.imports.byId(currentUser(req).account.id, pathId(req));
  if (!found) throw notFound();
  return found;
}

/** An import as the API shows it: its state and counts (Mastodon's BulkImport), and the first failed rows with why. */
function presentImport(ctx: SocialContext, imp: BulkImport) {
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  return {
    id: imp.id,
    type: imp.type,
    mode: imp.overwrite ? 'overwrite' : 'merge',
    state: imp.state,
    total_items: imp.totalItems,
    processed_items: imp.processedItems,
    imported_items: imp.importedItems,
    failed_items: imp.processedItems - imp.importedItems,
    created_at: iso(imp.createdAt),
    finished_at: iso(imp.finishedAt),
    failures: ctx.store.imports
      .failures(imp.id, MAX_FAILURES_SHOWN)
      .map((r) => ({ row: r.position + 1, data: r.data, error: r.error })),
  };
}

/** CSV exports and imports and the account archive in Mastodon's formats, so an account can move between Mastodon servers and Homeport. */
export function accountDataRoutes(app: FastifyInstance, ctx: SocialContext): void {
  // Mastodon's "Request your archive", made while it downloads (Mastodon mails a link to one it made in the background).
  app.get('/api/v1/homeport/exports/archive.zip', { config: { auth: auth.user('read') } }, async (req, reply) => {
    const { account } = currentUser(req);
    if (!ctx.federation)
      throw new ApiError(503, 'The archive holds ActivityPub documents, and federation is not running');
    const archive = ctx.accountArchive.stream(account, ctx.federation.archiveDocuments);
    const stamp = new Date(ctx.store.now()).toISOString().replace(/\D/g, '').slice(0, 14);
    reply
      .header('content-type', 'application/zip')
      .header('content-disposition', `attachment; filename="archive-${stamp}-${account.username}.zip"`);
    return reply.send(archive);
  });

  app.get('/api/v1/homeport/exports/:file', { config: { auth: auth.user('read') } }, async (req, reply) => {
    const file = (req.params as { file: string }).file;
    const kind = file.replace(/\.csv$/, '') as DataKind;
    if (!file.endsWith('.csv') || !DATA_KINDS.includes(kind)) throw notFound();
    const { account } = currentUser(req);
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${kind}.csv"`);
    return ctx.accountData.export(account, kind);
  });

  // Stored at once and worked off in the background (Mastodon's BulkImport); 202 with the import to poll.
  app.post(
    '/api/v1/homeport/imports',
    { config: { auth: auth.user('write'), uploads: { files: 1, fileSize: MAX_IMPORT_BYTES } } },
    async (req, reply) => {
      const { account } = currentUser(req);
      const p = parseParams(importSchema, requestParams(req));
      const csv = typeof p.data === 'string' ? p.data : await uploadedText(p.data);
      const created = ctx.accountData.schedule(account, p.type, csv, p.mode === 'overwrite');
      return reply.code(202).send(presentImport(ctx, created));
    },
  );

  app.get('/api/v1/homeport/imports', { config: { auth: auth.user('read') } }, async (req) => {
    const { account } = currentUser(req);
    const { limit } = parseParams(z.object({ limit: zInt.optional() }), requestParams(req));
    return ctx.store.imports
      .ofAccount(account.id, Math.min(Math.max(limit ?? DEFAULT_IMPORTS, 1), MAX_IMPORTS))
      .map((imp) => presentImport(ctx, imp));
  });

  app.get('/api/v1/homeport/imports/:id', { config: { auth: auth.user('read') } }, async (req) => {
    return presentImport(ctx, ownImport(ctx, req));
  });

  // Mastodon's "failures" file: the rows that failed, in the import's own format, to import again later.
  app.get('/api/v1/homeport/imports/:id/failures.csv', { config: { auth: auth.user('read') } }, async (req, reply) => {
    const imp = ownImport(ctx, req);
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${imp.type}_failures.csv"`);
    return ctx.accountData.failuresCsv(imp);
  });
}
