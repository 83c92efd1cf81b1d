import fs from 'node:fs';
import path from 'node:path';

/**
 * The social client's access tokens, one per server, kept by the main process and sealed with the system's
 * keychain (Electron's safeStorage) in a file only the user can read. Where the system offers no keychain
 * (a Linux desktop without a Secret Service), tokens are never written in the clear: they are kept in memory
 * until the app quits, and the caller tells the user so. Kept free of Electron imports so it is unit-tested; the
 * cipher is handed in.
 */
export interface TokenCipher {
  available(): boolean;
  seal(plain: string): Buffer;
  open(sealed: Buffer): string;
}

interface StoredToken {
  /** base64 of the sealed token (older versions also wrote unsealed ones: read once, then removed). */
  value: string;
  sealed: boolean;
}

/** Where a saved token went: the keychain-sealed file, this run's memory only (no keychain), or away. */
export type TokenSaveOutcome = 'sealed' | 'memory-only' | 'removed';

/** Tokens are short; anything longer is not one (and must not grow the file without bound). */
const MAX_TOKEN_LENGTH = 2048;
const MAX_SERVERS = 64;

export class SocialTokenStore {
  private readonly file: string;
  private readonly cipher: TokenCipher;
  /** Tokens that could not be sealed (no keychain): for this run only. */
  private readonly unsealed = new Map<string, string>();

  constructor(file: string, cipher: TokenCipher) {
    this.file = file;
    this.cipher = cipher;
  }

  load(server: string): string | null {
    const key = origin(server);
    const kept = this.unsealed.get(key);
    if (kept !== undefined) return kept;
    const entry = this.read()[key];
    if (!entry) return null;
    const bytes = Buffer.from(entry.value, 'base64');
    if (!entry.sealed) {
      // Written in the clear by an older version: off the disk now, sealed again where a keychain is available.
      const token = bytes.toString('utf8');
      this.save(server, token);
      return token;
    }
    try {
      return this.cipher.open(bytes);
    } catch {
      // Sealed by another user or keychain: unreadable, so the client signs in again.
      return null;
    }
  }

  save(server: string, token: string | null): TokenSaveOutcome {
    const key = origin(server);
    const all = this.read();
    delete all[key];
    this.unsealed.delete(key);
    let outcome: TokenSaveOutcome = 'removed';
    if (token !== null) {
      if (token.length > MAX_TOKEN_LENGTH) throw new Error('refused: not an access token');
      if (Object.keys(all).length + this.unsealed.size >= MAX_SERVERS)
        throw new Error(`refused: tokens for at most ${MAX_SERVERS} servers are kept`);
      if (this.cipher.available()) {
        all[key] = { value: this.cipher.seal(token).toString('base64'), sealed: true };
        outcome = 'sealed';
      } else {
        this.unsealed.set(key, token);
        outcome = 'memory-only';
      }
    }
    this.write(all);
    return outcome;
  }

  /** Only sealed tokens reach the disk: unsealed ones an older version wrote go at the first write. */
  private write(all: Record<string, StoredToken>): void {
    const sealed = Object.fromEntries(Object.entries(all).filter(([, entry]) => entry.sealed === true));
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(sealed), { mode: 0o600 });
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

/** What the app tells the user the first time a token could not be sealed. */
export const NO_KEYCHAIN_NOTICE =
  'This system offers no keychain to encrypt sign-ins with (on Linux: a Secret Service such as GNOME Keyring or ' +
  'KWallet, unlocked). Homeport does not write sign-in tokens in the clear, so your sign-ins to other servers ' +
  'last until Homeport quits; you will sign in again next time.';

/** Tokens are keyed by the server's origin; anything that is not an http(s) address is refused. */
function origin(server: string): string {
  const url = new URL(server);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('refused: not a server address');
  return url.origin;
}
