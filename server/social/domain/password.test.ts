import { describe, expect, it } from 'vitest';
import { generatePassword, hashPassword, verifyPassword } from './password.ts';

describe('password hashing', () => {
  it('hashes with scrypt, salts every hash, and verifies', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    expect(a).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery staple', a)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', a)).toBe(false);
    expect(await verifyPassword('x', null)).toBe(false);
    expect(await verifyPassword('x', 'bcrypt$whatever')).toBe(false);
    expect(generatePassword()).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });
});
