import type { DocumentLoader, DocumentLoaderFactory } from '@fedify/vocab-runtime';
import { getDocumentLoader, preloadedContexts } from '@fedify/vocab-runtime';

/** Longest wait for a remote document (actor, object, collection) before the fetch is given up. */
export const FETCH_TIMEOUT_MS = 10_000;
/** Redirects followed at most for one remote document. */
export const MAX_REDIRECTS = 3;

/**
 * What an unknown context stands for. Pleroma and Akkoma serve litepub-0.1.jsonld per instance, Hubzilla and
 * others their own: all of them bring the security vocabulary (publicKey, owner, publicKeyPem) and the
 * extension terms Mastodon defines inline (federation.md §1.4). Unknown contexts read as this, so their keys
 * and flags keep their meaning without fetching anything.
 */
const FALLBACK_CONTEXT = [
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
export const contextLoaderFactory: DocumentLoaderFactory = () => async (url) => {
  if (url in preloadedContexts) return { contextUrl: null, documentUrl: url, document: preloadedContexts[url] };
  // Older Mastodons named ActivityStreams' context by its http:// address (the W3C serves the same document there).
  const secure = url.replace(/^http:\/\//, 'https://');
  if (secure in preloadedContexts) return { contextUrl: null, documentUrl: url, document: preloadedContexts[secure] };
  return { contextUrl: null, documentUrl: url, document: { '@context': FALLBACK_CONTEXT } };
};

/**
 * Remote documents through Fedify's loader (private addresses refused after DNS resolution), with a time
 * limit and a bounded number of redirects.
 */
export const documentLoaderFactory: DocumentLoaderFactory = (options) => {
  const load: DocumentLoader = getDocumentLoader({
    allowPrivateAddress: false,
    userAgent: options?.userAgent,
    maxRedirection: MAX_REDIRECTS,
  });
  return (url, loadOptions) => {
    const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS);
    return load(url, {
      ...loadOptions,
      signal: loadOptions?.signal ? AbortSignal.any([loadOptions.signal, timeout]) : timeout,
    });
  };
};
