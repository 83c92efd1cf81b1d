import fs from 'node:fs';
import path from 'node:path';

/**
 * The social client's access tokens, one per server, kept by the main process in a file only the user can
 * read, each sealed with the system's keychain (Electron's safeStorage) where one is available. Kept free of
 * Electron imports so it is unit-tested; the cipher is handed in.
 */
export interface TokenCipher {
  available(): boolean;
  seal(plain: string): Buffer;
  open(sealed: Buffer): string;
}

interface StoredToken {
  /** base64 of the sealed token, or of the token itself when the system offers no keychain. */
  value: string;
  sealed: boolean;
}

/** Tokens are short; anything longer is not one (and must not grow the file without bound). */
const MAX_TOKEN_LENGTH = 2048;
const MAX_SERVERS = 64;

export class SocialTokenStore {
  private readonly file: string;
  private readonly cipher: TokenCipher;

  constructor(file: string, cipher: TokenCipher) {
    this.file = file;
    this.cipher = cipher;
  }

  load(server: string): string | null {
    const entry = this.read()[origin(server)];
    if (!entry) return null;
    const bytes = Buffer.from(entry.value, 'base64');
    if (!entry.sealed) return bytes.toString('utf8');
    try {
      return this.cipher.open(bytes);
    } catch {
      // Sealed by another user or keychain: unreadable, so the client signs in again.
      return null;
    }
  }

  save(server: string, token: string | null): void {
    const key = origin(server);
    const all = this.read();
    if (token === null) delete all[key];
    else {
      if (token.length > MAX_TOKEN_LENGTH) throw new Error('refused: not an access token');
      if (!(key in all) && Object.keys(all).length >= MAX_SERVERS)
        throw new Error(`refused: tokens for at most ${MAX_SERVERS} servers are kept`);
      const sealed = this.cipher.available();
      all[key] = { value: (sealed ? this.cipher.seal(token) : Buffer.from(token, 'utf8')).toString('base64'), sealed };
    }
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(all), { mode: 0o600 });
    fs.renameSync(temp, this.file);
  }

  private read(): Record<string, StoredToken> {
    try {
      const parsed: unknown = JSON.parse(fs.readFileSync(this.file, 'utf8'));
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, StoredToken>)
        : {};
    } catch {
      return {};
    }
  }
}

/** Tokens are keyed by the server's origin; anything that is not an http(s) address is refused. */
function origin(server: string): string {
  const url = new URL(server);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('refused: not a server address');
  return url.origin;
}
