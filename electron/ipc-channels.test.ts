import { describe, expect, it } from 'vitest';
import { isTrustedSender } from './ipc-channels.ts';

describe('isTrustedSender', () => {
  it('accepts pages of the app origin', () => {
    expect(isTrustedSender('http://127.0.0.1:3000/ui/eventlog', 'http://127.0.0.1:3000')).toBe(true);
  });
  it('refuses other origins, ports and garbage', () => {
    expect(isTrustedSender('http://127.0.0.1:3001/ui', 'http://127.0.0.1:3000')).toBe(false);
    expect(isTrustedSender('https://example.com/', 'http://127.0.0.1:3000')).toBe(false);
    expect(isTrustedSender('file:///etc/passwd', 'http://127.0.0.1:3000')).toBe(false);
    expect(isTrustedSender('not a url', 'http://127.0.0.1:3000')).toBe(false);
  });
});
