import { describe, expect, it } from 'vitest';
import { hostName, isAllowedHost, isLoopbackHost } from './host-check.ts';

describe('Host check', () => {
  it('serves loopback names and addresses, IP literals and the configured names', () => {
    for (const host of [
      '127.0.0.1:3000',
      'localhost:3000',
      'LOCALHOST',
      'app.localhost:8080',
      '[::1]:3000',
      '192.168.1.20:3000',
      'social.example.org',
      'Social.Example.org.:443',
    ]) {
      expect(isAllowedHost(host, ['social.example.org:443']), host).toBe(true);
    }
  });

  it('refuses any other name, a missing Host and malformed values', () => {
    for (const host of [
      undefined,
      '',
      'evil.example',
      'evil.example:3000',
      'localhost.evil.example',
      '127.0.0.1.evil.example',
      '[::1',
      '[::1]x',
      'a b',
      'social.example.org.evil',
    ]) {
      expect(isAllowedHost(host, ['social.example.org']), String(host)).toBe(false);
    }
  });

  it('tells loopback listen addresses from the others', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.2', '127.0.0.1.example'])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('parses host names', () => {
    expect(hostName('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(hostName('Example.ORG:80')).toBe('example.org');
    expect(hostName('exa mple')).toBeNull();
  });
});
