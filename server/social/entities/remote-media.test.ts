import { describe, expect, it } from 'vitest';
import { isPublicMediaUrl, isSvg, publicImageUrl, STRICT_REMOTE_MEDIA } from './remote-media.ts';

/*
 * The addresses of other servers' media that clients may be given: every spelling of a loopback or private
 * address that a URL parser turns into one, local-network names, and SVG by type or extension.
 */

const TESTS = { allowHttp: true };

describe('remote media addresses clients may load', () => {
  it('public https hosts pass; http only where allowed', () => {
    expect(isPublicMediaUrl('https://files.example.org/a/b.png', STRICT_REMOTE_MEDIA)).toBe(true);
    expect(isPublicMediaUrl('https://93.184.215.14/a.png', STRICT_REMOTE_MEDIA)).toBe(true);
    expect(isPublicMediaUrl('http://files.example.org/a.png', STRICT_REMOTE_MEDIA)).toBe(false);
    expect(isPublicMediaUrl('http://files.example.org/a.png', TESTS)).toBe(true);
    for (const other of [
      'ftp://files.example.org/a.png',
      'data:image/png;base64,AAAA',
      'javascript:alert(1)',
      'nonsense',
    ])
      expect(isPublicMediaUrl(other, TESTS), other).toBe(false);
  });

  it('loopback, private and local-network hosts are refused however they are written', () => {
    for (const url of [
      'https://127.0.0.1/a.png',
      'https://2130706433/a.png', // 127.0.0.1 in decimal
      'https://0x7f.1/a.png',
      'https://[::1]/a.png',
      'https://[::ffff:192.168.1.1]/a.png',
      'https://10.0.0.8/a.png',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/a.png',
      'https://localhost/a.png',
      'https://LOCALHOST./a.png',
      'https://app.localhost/a.png',
      'https://router/a.png',
      'https://printer.local/a.png',
      'https://db.internal/a.png',
      'https://nas.home.arpa/a.png',
      'https://user:secret@files.example.org/a.png',
    ])
      expect(isPublicMediaUrl(url, TESTS), url).toBe(false);
  });

  it('SVG is known by its type or, without one, its extension, and is never an image', () => {
    expect(isSvg('https://files.example.org/a', 'image/svg+xml')).toBe(true);
    expect(isSvg('https://files.example.org/a.SVG')).toBe(true);
    expect(isSvg('https://files.example.org/a.svgz?x=1')).toBe(true);
    expect(isSvg('https://files.example.org/svg/a.png', 'image/png')).toBe(false);
    expect(publicImageUrl('https://files.example.org/avatar.svg', STRICT_REMOTE_MEDIA)).toBeNull();
    expect(publicImageUrl('https://files.example.org/avatar.png', STRICT_REMOTE_MEDIA)).toBe(
      'https://files.example.org/avatar.png',
    );
    expect(publicImageUrl(null, STRICT_REMOTE_MEDIA)).toBeNull();
  });
});
