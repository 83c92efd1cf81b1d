import { describe, expect, it } from 'vitest';
import { TcpCommand, TcpFlags } from './commands.ts';
import { encodeFrame, PackageError, parsePackage } from './package.ts';

const id = Buffer.from('00112233445566778899aabbccddeeff', 'hex');

describe('TCP packages', () => {
  it('round-trips a package without credentials', () => {
    const frame = encodeFrame(TcpCommand.Ping, id, Buffer.from('hello'));
    expect(frame.readInt32LE(0)).toBe(frame.length - 4);
    const pkg = parsePackage(frame.subarray(4));
    expect(pkg).toMatchObject({ command: TcpCommand.Ping, flags: TcpFlags.None, login: null, password: null });
    expect(pkg.correlationId).toEqual(id);
    expect(pkg.body.toString()).toBe('hello');
  });

  it('round-trips credentials (UTF-8, up to 255 bytes each)', () => {
    const login = 'ü'.repeat(127);
    const frame = encodeFrame(TcpCommand.WriteEvents, id, Buffer.from([1, 2, 3]), { login, password: 'pässword' });
    const pkg = parsePackage(frame.subarray(4));
    expect(pkg.flags & TcpFlags.Authenticated).toBeTruthy();
    expect(pkg.login).toBe(login);
    expect(pkg.password).toBe('pässword');
    expect([...pkg.body]).toEqual([1, 2, 3]);
    expect(() => encodeFrame(TcpCommand.WriteEvents, id, null, { login: 'x'.repeat(256) })).toThrow(RangeError);
  });

  it('parses an empty body and an empty password', () => {
    const pkg = parsePackage(
      encodeFrame(TcpCommand.Authenticate, id, null, { login: 'admin', password: '' }).subarray(4),
    );
    expect(pkg.login).toBe('admin');
    expect(pkg.password).toBe('');
    expect(pkg.body.length).toBe(0);
  });

  it('rejects packages that are too short or whose credentials run past the end', () => {
    expect(() => parsePackage(Buffer.alloc(17))).toThrow(PackageError);
    const frame = encodeFrame(TcpCommand.Ping, id, null, { login: 'admin', password: 'changeit' }).subarray(4);
    expect(() => parsePackage(frame.subarray(0, frame.length - 1))).toThrow(PackageError);
    const noPasswordLength = Buffer.concat([frame.subarray(0, 18), Buffer.of(2), Buffer.from('ab')]);
    expect(() => parsePackage(noPasswordLength)).toThrow(/password/);
  });

  it('keeps a private copy of the correlation id', () => {
    const frame = encodeFrame(TcpCommand.Ping, id, null).subarray(4);
    const pkg = parsePackage(frame);
    frame.fill(0);
    expect(pkg.correlationId).toEqual(id);
  });
});
