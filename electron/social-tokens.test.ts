import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SocialTokenStore, type TokenCipher } from './social-tokens.ts';

/** A reversible stand-in for the keychain: enough to tell sealed from plain bytes on disk. */
const xor: TokenCipher = {
  available: () => true,
  seal: (plain) => Buffer.from(Buffer.from(plain, 'utf8').map((b) => b ^ 0x5a)),
  open: (sealed) => Buffer.from(sealed.map((b) => b ^ 0x5a)).toString('utf8'),
};

function tempFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-tokens-')), 'social-tokens.json');
}

describe('social token store', () => {
  it('keeps one token per server, sealed, in a file only the user can read', () => {
    const file = tempFile();
    const store = new SocialTokenStore(file, xor);
    store.save('https://mastodon.example/', 'token-a');
    store.save('http://127.0.0.1:8080', 'token-b');
    expect(new SocialTokenStore(file, xor).load('https://mastodon.example')).toBe('token-a');
    expect(store.load('http://127.0.0.1:8080/ui/social')).toBe('token-b');
    expect(store.load('https://other.example')).toBeNull();
    expect(fs.readFileSync(file, 'utf8')).not.toContain('token-a');
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    store.save('https://mastodon.example', null);
    expect(store.load('https://mastodon.example')).toBeNull();
    expect(store.load('http://127.0.0.1:8080')).toBe('token-b');
  });

  it('stores plainly (still private to the user) where the system has no keychain, and refuses what is not a token', () => {
    const file = tempFile();
    const store = new SocialTokenStore(file, { ...xor, available: () => false });
    store.save('https://a.example', 'plain-token');
    expect(new SocialTokenStore(file, xor).load('https://a.example')).toBe('plain-token');
    expect(() => store.save('https://a.example', 'x'.repeat(5000))).toThrow(/not an access token/);
    expect(() => store.save('file:///etc', 'x')).toThrow(/not a server address/);
  });

  it('treats a token sealed by another keychain as absent, and a damaged file as empty', () => {
    const file = tempFile();
    new SocialTokenStore(file, xor).save('https://a.example', 'secret');
    const otherKeychain = new SocialTokenStore(file, {
      ...xor,
      open: () => {
        throw new Error('cannot decrypt');
      },
    });
    expect(otherKeychain.load('https://a.example')).toBeNull();
    fs.writeFileSync(file, '{not json');
    expect(new SocialTokenStore(file, xor).load('https://a.example')).toBeNull();
  });
});
