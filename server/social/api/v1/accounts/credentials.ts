// https://docs.joinmastodon.org/methods/accounts/#verify_credentials and #update_credentials
import type { FastifyInstance } from 'fastify';
import { UPLOADS } from '../../../limits.ts';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { DetailsCollector } from '../../../errors.ts';
import { auth, currentUser, parseParams, requestParams, zBool, zFile, zList, zString } from '../../../http/index.ts';
import { processProfileImage, type UploadedFile } from '../../../media/index.ts';
import type { Account, ProfileChanges, ProfileField, User, UserSettings } from '../../../store/index.ts';

export const PROFILE_LIMITS = {
  displayName: 30,
  note: 500,
  fields: 4,
  fieldName: 255,
  fieldValue: 255,
  imageDescription: 1500,
  attributionDomains: 10,
} as const;

const fieldSchema = z.object({ name: zString.optional(), value: zString.optional() });

// An empty source ("" or {}) is accepted and changes nothing.
const sourceSchema = z.preprocess(
  (v) => (v === '' || v === null ? {} : v),
  z.object({
    privacy: z.enum(['public', 'unlisted', 'private']).optional(),
    sensitive: zBool.optional(),
    language: z
      .preprocess(
        (v) => (v === null ? '' : v),
        zString.refine((s) => s === '' || /^[a-z]{2,3}$/.test(s), 'must be an ISO 639-1 language code'),
      )
      .optional(),
    quote_policy: z.enum(['public', 'followers', 'nobody']).optional(),
  }),
);

export const updateSchema = z.object({
  display_name: zString.optional(),
  note: zString.optional(),
  avatar: zFile.optional(),
  header: zFile.optional(),
  avatar_description: zString.optional(),
  header_description: zString.optional(),
  locked: zBool.optional(),
  bot: zBool.optional(),
  discoverable: zBool.optional(),
  hide_collections: zBool.optional(),
  indexable: zBool.optional(),
  attribution_domains: zList(zString).optional(),
  // Mastodon ignores entries that are not objects (masto.js sends the text "undefined" for an unset field).
  fields_attributes: z
    .preprocess((v) => (v === '' ? [] : v), zList(z.unknown()))
    .transform((list) => list.filter((f): f is object => typeof f === 'object' && f !== null && !Array.isArray(f)))
    .pipe(z.array(fieldSchema))
    .optional(),
  source: sourceSchema.optional(),
});

export type UpdateParams = z.output<typeof updateSchema>;

function countChars(s: string): number {
  return [...s].length;
}

export function credentialRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get(
    '/api/v1/accounts/verify_credentials',
    { config: { auth: auth.user('profile', 'read:accounts') } },
    async (req) => {
      const { account, user } = currentUser(req);
      return ctx.presenter.credential(account, user);
    },
  );

  app.patch(
    '/api/v1/accounts/update_credentials',
    { config: { auth: auth.user('write:accounts'), uploads: UPLOADS.images } },
    async (req) => {
      const { account, user } = currentUser(req);
      await updateProfile(ctx, account, user, parseParams(updateSchema, requestParams(req)));
      return ctx.presenter.credential(ctx.store.accounts.byId(account.id)!, ctx.store.users.byId(user.id)!);
    },
  );
}

/**
 * Applies a profile update (update_credentials and the newer /api/v1/profile take the same fields): checks
 * everything, then writes the images, then the row, and removes the images it replaced.
 */
export async function updateProfile(
  ctx: SocialContext,
  account: Account,
  user: User,
  p: UpdateParams,
  extraSettings: Partial<UserSettings> = {},
): Promise<void> {
  const details = new DetailsCollector();
  const changes: ProfileChanges = {};

  if (p.display_name !== undefined) {
    if (countChars(p.display_name) > PROFILE_LIMITS.displayName)
      details.add('display_name', 'ERR_TOO_LONG', `is too long (maximum is ${PROFILE_LIMITS.displayName} characters)`);
    changes.displayName = p.display_name.trim();
  }
  if (p.note !== undefined) {
    // Multipart bodies carry CRLF line breaks (the form encoding's rule); store plain LF.
    const note = p.note.replace(/\r\n?/g, '\n');
    if (countChars(note) > PROFILE_LIMITS.note)
      details.add('note', 'ERR_TOO_LONG', `is too long (maximum is ${PROFILE_LIMITS.note} characters)`);
    changes.note = note;
  }
  for (const key of ['avatar_description', 'header_description'] as const) {
    const v = p[key];
    if (v === undefined) continue;
    if (countChars(v) > PROFILE_LIMITS.imageDescription)
      details.add(key, 'ERR_TOO_LONG', `is too long (maximum is ${PROFILE_LIMITS.imageDescription} characters)`);
    if (key === 'avatar_description') changes.avatarDescription = v;
    else changes.headerDescription = v;
  }
  if (p.fields_attributes !== undefined) {
    const fields: ProfileField[] = p.fields_attributes
      .map((f) => ({ name: (f.name ?? '').trim(), value: (f.value ?? '').trim() }))
      .filter((f) => f.name !== '' || f.value !== '')
      .map((f) => {
        const previous = account.fields.find((old) => old.name === f.name && old.value === f.value);
        return { ...f, verified_at: previous?.verified_at ?? null };
      });
    if (fields.length > PROFILE_LIMITS.fields)
      details.add('fields', 'ERR_TOO_LONG', `has too many entries (maximum is ${PROFILE_LIMITS.fields})`);
    if (fields.some((f) => countChars(f.name) > PROFILE_LIMITS.fieldName))
      details.add('fields', 'ERR_TOO_LONG', `name is too long (maximum is ${PROFILE_LIMITS.fieldName} characters)`);
    if (fields.some((f) => countChars(f.value) > PROFILE_LIMITS.fieldValue))
      details.add('fields', 'ERR_TOO_LONG', `value is too long (maximum is ${PROFILE_LIMITS.fieldValue} characters)`);
    changes.fields = fields;
  }
  if (p.attribution_domains !== undefined) {
    const domains = [...new Set(p.attribution_domains.map((d) => d.trim().toLowerCase()).filter(Boolean))];
    if (domains.length > PROFILE_LIMITS.attributionDomains)
      details.add(
        'attribution_domains',
        'ERR_TOO_LONG',
        `has too many entries (maximum is ${PROFILE_LIMITS.attributionDomains})`,
      );
    if (domains.some((d) => !/^[a-z0-9.-]+\.[a-z0-9-]+$/.test(d)))
      details.add('attribution_domains', 'ERR_INVALID', 'must be domain names');
    changes.attributionDomains = domains;
  }
  if (p.locked !== undefined) changes.locked = p.locked;
  if (p.bot !== undefined) changes.actorType = p.bot ? 'Service' : 'Person';
  if (p.discoverable !== undefined) changes.discoverable = p.discoverable;
  if (p.hide_collections !== undefined) changes.hideCollections = p.hide_collections;
  if (p.indexable !== undefined) changes.indexable = p.indexable;
  details.throwIfAny();

  // Images last: only once everything else is valid, so a rejected request leaves no stray files.
  const images: { field: 'avatar' | 'header'; file: UploadedFile }[] = [];
  if (p.avatar) images.push({ field: 'avatar', file: p.avatar });
  if (p.header) images.push({ field: 'header', file: p.header });
  const written: string[] = [];
  try {
    for (const { field, file } of images) {
      const processed =
        field === 'avatar'
          ? await processProfileImage('avatar', file, 400, 400)
          : await processProfileImage('header', file, 1500, 500);
      const path = await ctx.media.write(`accounts/${field}s/${account.id}`, processed.extension, processed.data);
      written.push(path);
      if (field === 'avatar') changes.avatarFile = path;
      else changes.headerFile = path;
    }
  } catch (err) {
    for (const path of written) await ctx.media.remove(path);
    throw err;
  }

  const settings: UserSettings = { ...user.settings, ...extraSettings };
  if (p.source) {
    if (p.source.privacy !== undefined) settings.defaultPrivacy = p.source.privacy;
    if (p.source.sensitive !== undefined) settings.defaultSensitive = p.source.sensitive;
    if (p.source.language !== undefined) settings.defaultLanguage = p.source.language || null;
    if (p.source.quote_policy !== undefined) settings.defaultQuotePolicy = p.source.quote_policy;
  }
  ctx.accounts.updateProfile(account.id, changes, { userId: user.id, settings });
  await removeReplaced(ctx, account, changes);
}

export async function removeReplaced(ctx: SocialContext, before: Account, changes: ProfileChanges): Promise<void> {
  if (changes.avatarFile !== undefined && before.avatarFile && before.avatarFile !== changes.avatarFile)
    await ctx.media.remove(before.avatarFile);
  if (changes.headerFile !== undefined && before.headerFile && before.headerFile !== changes.headerFile)
    await ctx.media.remove(before.headerFile);
}
