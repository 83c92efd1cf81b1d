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
    expect(store.save('https://mastodon.example/', 'token-a')).toBe('sealed');
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

  it('never writes a token in the clear where the system has no keychain: it lasts for this run, and says so', () => {
    const file = tempFile();
    const store = new SocialTokenStore(file, { ...xor, available: () => false });
    expect(store.save('https://a.example', 'plain-token')).toBe('memory-only');
    expect(store.load('https://a.example')).toBe('plain-token');
    expect(fs.readFileSync(file, 'utf8')).not.toContain(Buffer.from('plain-token').toString('base64'));
    expect(fs.readFileSync(file, 'utf8')).not.toContain('plain-token');
    // The next run (a new store) has nothing to read.
    expect(new SocialTokenStore(file, xor).load('https://a.example')).toBeNull();
    expect(store.save('https://a.example', null)).toBe('removed');
    expect(store.load('https://a.example')).toBeNull();
    expect(() => store.save('https://a.example', 'x'.repeat(5000))).toThrow(/not an access token/);
    expect(() => store.save('file:///etc', 'x')).toThrow(/not a server address/);
  });

  it('takes tokens an older version wrote in the clear off the disk, sealing them where it can', () => {
    const file = tempFile();
    const plain = (token: string) => ({ value: Buffer.from(token).toString('base64'), sealed: false });
    fs.writeFileSync(
      file,
      JSON.stringify({ 'https://a.example': plain('old-a'), 'https://b.example': plain('old-b') }),
    );
    const store = new SocialTokenStore(file, xor);
    expect(store.load('https://a.example')).toBe('old-a');
    const onDisk = fs.readFileSync(file, 'utf8');
    // a is sealed now; b, written in the clear too, is gone with the first write.
    expect(JSON.parse(onDisk)).toEqual({ 'https://a.example': { value: expect.any(String), sealed: true } });
    expect(onDisk).not.toContain(Buffer.from('old-b').toString('base64'));
    expect(new SocialTokenStore(file, xor).load('https://a.example')).toBe('old-a');
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
