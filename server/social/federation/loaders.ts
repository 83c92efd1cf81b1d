import { signRequest } from '@fedify/fedify';
import type { AuthenticatedDocumentLoaderFactory, DocumentLoaderFactory, RemoteDocument } from '@fedify/vocab-runtime';
import { getRemoteDocument, preloadedContexts } from '@fedify/vocab-runtime';
import { RemoteFetchError, type RemoteFetcher } from './remote-fetch.ts';

/**
 * What an unknown context stands for. Pleroma and Akkoma serve litepub-0.1.jsonld per instance, Hubzilla and
 * others their own: all of them bring the security vocabulary (publicKey, owner, publicKeyPem) and the
 * extension terms Mastodon defines inline (federation.md §1.4). Unknown contexts read as this, so their keys
 * and flags keep their meaning without fetching anything.
 */
export const FALLBACK_CONTEXT = [
  'https://w3id.org/security/v1',
  {
    toot: 'http://joinmastodon.org/ns#',
    schema: 'http://schema.org#',
    litepub: 'http://litepub.social/ns#',
    misskey: 'https://misskey-hub.net/ns#',
    ostatus: 'http://ostatus.org#',
    sensitive: 'as:sensitive',
    Hashtag: 'as:Hashtag',
    manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
    movedTo: { '@id': 'as:movedTo', '@type': '@id' },
    alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' },
    Emoji: 'toot:Emoji',
    discoverable: 'toot:discoverable',
    indexable: 'toot:indexable',
    suspended: 'toot:suspended',
    memorial: 'toot:memorial',
    featured: { '@id': 'toot:featured', '@type': '@id' },
    featuredTags: { '@id': 'toot:featuredTags', '@type': '@id' },
    blurhash: 'toot:blurhash',
    focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
    PropertyValue: 'schema:PropertyValue',
    value: 'schema:value',
    atomUri: 'ostatus:atomUri',
    inReplyToAtomUri: 'ostatus:inReplyToAtomUri',
    conversation: 'ostatus:conversation',
    ChatMessage: 'litepub:ChatMessage',
    EmojiReact: 'litepub:EmojiReact',
    _misskey_content: 'misskey:_misskey_content',
    _misskey_quote: 'misskey:_misskey_quote',
    quoteUrl: 'as:quoteUrl',
  },
];

/**
 * JSON-LD contexts come only from Fedify's preloaded set (ActivityStreams, security, data integrity, multikey,
 * schema.org…) and FALLBACK_CONTEXT for any other: a context is never fetched.
 */
/** Unknown contexts read as FALLBACK_CONTEXT so far: each is JSON-LD work on a body (tests count it). */
export const fallbackContextReads = { count: 0 };

export const contextLoaderFactory: DocumentLoaderFactory = () => async (url) => {
  if (url in preloadedContexts) return { contextUrl: null, documentUrl: url, document: preloadedContexts[url] };
  // Older Mastodons named ActivityStreams' context by its http:// address (the W3C serves the same document there).
  const secure = url.replace(/^http:\/\//, 'https://');
  if (secure in preloadedContexts) return { contextUrl: null, documentUrl: url, document: preloadedContexts[secure] };
  fallbackContextReads.count++;
  return { contextUrl: null, documentUrl: url, document: { '@context': FALLBACK_CONTEXT } };
};

/** What an ActivityPub document is asked for as (Fedify's and Mastodon's Accept). */
const ACTIVITY_ACCEPT = 'application/activity+json, application/ld+json';

/** Signs a request as `identity` by one HTTP signature draft. */
function signer(identity: SigningIdentity, spec: 'draft-cavage-http-signatures-12' | 'rfc9421') {
  return (request: Request) => signRequest(request, identity.privateKey, identity.keyId, { spec });
}

type SigningIdentity = Parameters<AuthenticatedDocumentLoaderFactory>[0];

/**
 * One remote document through the bounded fetcher (one deadline for all of it), read by Fedify's own parser
 * (Link headers, an HTML page's alternate link, followed once). Signed as `identity` when given: the
 * cavage draft first (what Mastodon, GoToSocial, Misskey and Akkoma accept), RFC 9421 when that is refused.
 */
async function loadDocument(
  fetcher: RemoteFetcher,
  url: string,
  signal: AbortSignal | undefined,
  identity?: SigningIdentity,
): Promise<RemoteDocument> {
  if (url in preloadedContexts) return { contextUrl: null, documentUrl: url, document: preloadedContexts[url] };
  const deadline = fetcher.deadline(signal);
  let alternates = 0;
  const load = async (target: string): Promise<RemoteDocument> => {
    const get = (sign?: (request: Request) => Promise<Request>) =>
      fetcher.get(target, { accept: ACTIVITY_ACCEPT, signal: deadline, sign });
    let res = await get(identity && signer(identity, 'draft-cavage-http-signatures-12'));
    if (identity && (res.status === 400 || res.status === 401)) res = await get(signer(identity, 'rfc9421'));
    if (res.status < 200 || res.status > 599)
      throw new RemoteFetchError(`${res.url} answered with status ${res.status}`);
    const body = [204, 205, 304].includes(res.status) ? null : new Uint8Array(res.body);
    return getRemoteDocument(res.url, new Response(body, { status: res.status, headers: res.headers }), (next) => {
      if (++alternates > 1)
        throw new RemoteFetchError(`${target} points to an alternate of an alternate`, { bounds: true });
      return load(next);
    });
  };
  return load(url);
}

/**
 * Fedify's loaders over the bounded fetcher: remote documents (actors, objects, collections) and the same
 * signed as one of our actors (key fetches of the inbox, Move checks, refreshes). Fedify's own loaders use the
 * global fetch, with no byte limit or deadline and a DNS check apart from the connection (see remote-fetch.ts).
 */
export function boundedLoaders(fetcher: RemoteFetcher): {
  documentLoaderFactory: DocumentLoaderFactory;
  authenticatedDocumentLoaderFactory: AuthenticatedDocumentLoaderFactory;
} {
  return {
    documentLoaderFactory: () => (url, options) => loadDocument(fetcher, url, options?.signal),
    authenticatedDocumentLoaderFactory: (identity) => (url, options) =>
      loadDocument(fetcher, url, options?.signal, identity),
  };
}
