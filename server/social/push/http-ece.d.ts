// http_ece (a dependency of web-push) ships no types; the push tests decrypt with it as a receiver would.
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';
  interface DecryptParams {
    version: 'aes128gcm' | 'aesgcm';
    privateKey: ECDH;
    authSecret: string;
    dh?: string;
    salt?: string;
  }
  const ece: { decrypt(buffer: Buffer, params: DecryptParams): Buffer };
  export default ece;
}
