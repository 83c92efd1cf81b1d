import { Object as APObject } from '@fedify/vocab';
import type { DocumentLoader } from '@fedify/vocab-runtime';
import type { FedContext } from './deps.ts';
import { RemoteFetchError } from './remote-fetch.ts';

/*
 * Looking things up on other servers: WebFinger and object documents, all through the bounded fetcher
 * (c.data.fetcher, through Fedify's loaders for documents). Fedify's lookupObject is not used: for a handle,
 * and for a URL whose document fails, it asks WebFinger through the global fetch, without bounds.
 */

const JRD_ACCEPT = 'application/jrd+json, application/json';
const ACTIVITY_TYPE =
  /^application\/(activity\+json|ld\+json;\s*profile="https:\/\/www\.w3\.org\/ns\/activitystreams")$/;

/**
 * The ActivityPub id WebFinger gives for `resource` (`acct:user@host`, or an address on `host`): the `self`
 * link of an ActivityStreams type. Null when the server knows no such resource.
 */
export async function webFinger(c: FedContext, resource: string, host: string): Promise<URL | null> {
  const url = new URL(`https://${host}/.well-known/webfinger`);
  url.searchParams.set('resource', resource);
  const res = await c.data.fetcher.get(url.href, { accept: JRD_ACCEPT });
  if (res.status !== 200) return null;
  let jrd: { links?: unknown };
  try {
    jrd = JSON.parse(res.body.toString('utf8'));
  } catch {
    throw new RemoteFetchError(`the WebFinger answer of ${host} is not JSON`);
  }
  if (!Array.isArray(jrd?.links)) return null;
  for (const link of jrd.links as { rel?: unknown; type?: unknown; href?: unknown }[]) {
    if (link?.rel !== 'self' || typeof link.type !== 'string' || typeof link.href !== 'string') continue;
    if (!ACTIVITY_TYPE.test(link.type)) continue;
    const href = URL.parse(link.href);
    if (href && (href.protocol === 'https:' || href.protocol === 'http:')) return href;
  }
  return null;
}

/**
 * The object with id `id`, read through `documentLoader` (the context's by default). Null when the document
 * is no ActivityStreams object, or names an id on another origin than the one that served it.
 */
export async function fetchObject(
  c: FedContext,
  id: string | URL,
  documentLoader: DocumentLoader = c.documentLoader,
): Promise<APObject | null> {
  const doc = await documentLoader(String(id));
  const servedFrom = new URL(doc.documentUrl);
  let object: APObject;
  try {
    object = await APObject.fromJsonLd(doc.document, {
      documentLoader,
      contextLoader: c.contextLoader,
      baseUrl: servedFrom,
    });
  } catch (err) {
    if (err instanceof TypeError) return null;
    throw err;
  }
  if (object.id && object.id.origin !== servedFrom.origin) return null;
  return object;
}

/**
 * What a handle (`acct:user@host`) or an http(s) URL names: a handle through WebFinger then its document; a
 * URL by its document, or through WebFinger on its host when that document cannot be read (a profile page).
 * A server that goes past the fetch bounds gets no second request.
 */
export async function lookupRemote(
  c: FedContext,
  identifier: string,
  documentLoader?: DocumentLoader,
): Promise<APObject | null> {
  if (/^acct:/i.test(identifier)) {
    const host = identifier.slice(identifier.lastIndexOf('@') + 1);
    const id = await webFinger(c, identifier, host);
    return id ? fetchObject(c, id, documentLoader) : null;
  }
  try {
    return await fetchObject(c, identifier, documentLoader);
  } catch (err) {
    if (err instanceof RemoteFetchError && err.bounds) throw err;
    const id = await webFinger(c, identifier, new URL(identifier).host);
    if (!id || id.href === identifier) throw err;
    return fetchObject(c, id, documentLoader);
  }
}
