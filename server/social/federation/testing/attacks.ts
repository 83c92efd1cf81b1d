import crypto from 'node:crypto';

/*
 * The requests of issue 32 as anyone can make them: an inbox POST whose signature names a key on the hostile
 * server (the key is fetched before anything is verified), and a search that resolves a handle or URL.
 */

/** POSTs a Create to `serverUrl`'s shared inbox, signed (bytes at random) with the key `keyId`. */
export async function inboxPostWithKey(serverUrl: string, keyId: string): Promise<{ status: number; text: string }> {
  const origin = new URL(keyId).origin;
  const body = JSON.stringify({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${origin}/activities/${crypto.randomUUID()}`,
    type: 'Create',
    actor: keyId.replace(/#.*$/, ''),
    object: { id: `${origin}/notes/1`, type: 'Note', content: 'hello' },
  });
  // The signature's bytes do not matter: the key is fetched before they are checked.
  const signature = [
    `keyId="${keyId}"`,
    'algorithm="rsa-sha256"',
    'headers="(request-target) host date digest"',
    `signature="${crypto.randomBytes(256).toString('base64')}"`,
  ].join(',');
  const res = await fetch(`${serverUrl}/inbox`, {
    method: 'POST',
    headers: {
      host: new URL(serverUrl).host,
      date: new Date().toUTCString(),
      digest: `SHA-256=${crypto.createHash('sha256').update(body).digest('base64')}`,
      signature,
      'content-type': 'application/activity+json',
    },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** Mastodon's search with resolve=true for accounts, as `token`'s user; the error of a refusal when there is one. */
export async function resolvingSearch(
  serverUrl: string,
  token: string,
  q: string,
): Promise<{ status: number; error?: string }> {
  const res = await fetch(
    `${serverUrl}/api/v2/search?${new URLSearchParams({ q, resolve: 'true', type: 'accounts' })}`,
    {
      headers: { authorization: `Bearer ${token}` },
    },
  );
  const json = (await res.json()) as { error?: string };
  return { status: res.status, error: json.error };
}
