import { describe, expect, it } from 'vitest';
import { startTestHomeport } from './testing/homeport.ts';

async function eleventhSignIns(trustProxy: boolean): Promise<{ sameAddress: number; otherAddress: number }> {
  const { hp, close } = await startTestHomeport({ trustProxy });
  const signIn = (forwardedFor: string) =>
    fetch(`${hp.httpUrl}/api/homeport/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: JSON.stringify({ username: 'admin', password: 'wrong' }),
    }).then((r) => r.status);
  try {
    for (let i = 0; i < 10; i++) expect(await signIn('203.0.113.1')).toBe(401);
    return { sameAddress: await signIn('203.0.113.1'), otherAddress: await signIn('203.0.113.2') };
  } finally {
    await close();
  }
}

describe('--trust-proxy', () => {
  it('throttles each forwarded client on its own behind a proxy, and ignores X-Forwarded-For otherwise', async () => {
    expect(await eleventhSignIns(true)).toEqual({ sameAddress: 429, otherAddress: 401 });
    // Without the flag the header is anyone's to forge: every request counts against the connection's address.
    expect(await eleventhSignIns(false)).toEqual({ sameAddress: 429, otherAddress: 429 });
  });
});
