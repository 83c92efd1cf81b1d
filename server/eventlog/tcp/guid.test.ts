import { describe, expect, it } from 'vitest';
import { guidBytesToString, guidStringToBytes, newCorrelationId } from './guid.ts';

describe('.NET GUID byte order', () => {
  it('matches the documented example', () => {
    const bytes = guidStringToBytes('00112233-4455-6677-8899-aabbccddeeff');
    expect(bytes.toString('hex')).toBe('33221100' + '5544' + '7766' + '8899aabbccddeeff');
    expect(guidBytesToString(bytes)).toBe('00112233-4455-6677-8899-aabbccddeeff');
  });

  it('round-trips random ids and accepts upper case', () => {
    for (let i = 0; i < 100; i++) {
      const id = newCorrelationId();
      const text = guidBytesToString(id);
      expect(guidStringToBytes(text.toUpperCase())).toEqual(id);
    }
  });

  it('rejects malformed text and wrong lengths', () => {
    expect(() => guidStringToBytes('00112233445566778899aabbccddeeff')).toThrow(RangeError);
    expect(() => guidStringToBytes('0011223g-4455-6677-8899-aabbccddeeff')).toThrow(RangeError);
    expect(() => guidBytesToString(Buffer.alloc(15))).toThrow(RangeError);
  });
});
