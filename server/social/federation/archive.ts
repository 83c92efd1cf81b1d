import { Announce, Create } from '@fedify/vocab';
import { Temporal } from '@js-temporal/polyfill';
import type { ArchiveDocuments, JsonObject } from '../domain/index.ts';
import type { StatusRow } from '../store/index.ts';
import type { FedContext } from './deps.ts';
import { personOf } from './actors.ts';
import { withMastodonAttachmentKeys } from './attachments.ts';
import { addressing, noteOf } from './objects.ts';
import { actorUri, statusUri } from './uris.ts';

/**
 * The documents of an account archive (see AccountArchive): the same ones federation serves, with the links
 * naming our media files turned into their paths inside the archive, as Mastodon's BackupService does.
 */
export function archiveDocuments(context: () => FedContext): ArchiveDocuments {
  const toJson = async (
    c: FedContext,
    object: { toJsonLd(o: { contextLoader: FedContext['contextLoader'] }): Promise<unknown> },
  ) => (await object.toJsonLd({ contextLoader: c.contextLoader })) as JsonObject;
  const mediaBase = () => `${context().data.social.urls.base}/system/`;
  const archivePath = (url: string): string | null =>
    url.startsWith(mediaBase()) ? decodeURIComponent(url.slice(mediaBase().length)) : null;

  return {
    async actor(account, files) {
      const c = context();
      const actor = await toJson(c, await personOf(c, c.data, account));
      withUrl(actor.icon, files.avatar);
      withUrl(actor.image, files.header);
      return { ...actor, outbox: 'outbox.json', likes: 'likes.json', bookmarks: 'bookmarks.json' };
    },

    async activity(status) {
      const c = context();
      const activity = status.reblogOfId ? announceOf(c, status) : createOf(c, status);
      if (!activity) return null;
      // Mastodon's keys for blurhash and focal point, as federation sends them (see attachments.ts).
      const { '@context': _context, ...item } = withMastodonAttachmentKeys(await toJson(c, activity)) as JsonObject;
      const object = item.object as JsonObject | undefined;
      for (const attachment of asArray(object?.attachment)) {
        const url = typeof attachment.url === 'string' ? archivePath(attachment.url) : null;
        if (url) attachment.url = url;
      }
      return item;
    },

    async outboxContext() {
      // Fedify gives every Create the same context, and it holds every term an Announce uses too.
      const c = context();
      const sample = new Create({ actor: new URL(c.data.social.urls.base) });
      return ((await toJson(c, sample)) as JsonObject)['@context'];
    },

    statusUri: (status) => statusUri(context().data, status),
  };
}

/** The Create activity federation sends for a post (same id, addressing and publication time). */
function createOf(c: FedContext, status: StatusRow): Create | null {
  const note = noteOf(c, status);
  return note
    ? new Create({
        id: new URL(`${note.id!.href}/activity`),
        actor: note.attributionId,
        object: note,
        tos: note.toIds,
        ccs: note.ccIds,
        published: note.published,
      })
    : null;
}

/** The Announce federation sends for a reblog (its id is the reblog's own ActivityPub id). */
function announceOf(c: FedContext, status: StatusRow): Announce | null {
  const store = c.data.social.store;
  const author = store.accounts.byId(status.accountId);
  const original = status.reblogOfId ? store.statuses.byId(status.reblogOfId) : null;
  if (!author || author.domain !== null || !original) return null;
  const originalAuthor = store.accounts.byId(original.accountId);
  const { tos, ccs } = addressing(
    status.visibility,
    c.getFollowersUri(author.username),
    originalAuthor ? [new URL(actorUri(c.data, originalAuthor))] : [],
  );
  return new Announce({
    id: new URL(c.data.social.urls.statusUri(author.username, status.id, true)),
    actor: c.getActorUri(author.username),
    object: new URL(statusUri(c.data, original)),
    published: Temporal.Instant.fromEpochMilliseconds(status.createdAt) as unknown as globalThis.Temporal.Instant,
    tos,
    ccs,
  });
}

function withUrl(image: unknown, path: string | null): void {
  if (image && typeof image === 'object' && path) (image as JsonObject).url = path;
}

function asArray(value: unknown): JsonObject[] {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list.filter((v): v is JsonObject => typeof v === 'object' && v !== null);
}
