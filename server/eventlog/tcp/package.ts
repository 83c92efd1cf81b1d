import { FRAME_HEADER_BYTES } from './framing.ts';
import { GUID_BYTES } from './guid.ts';
import { TcpFlags } from './commands.ts';

/**
 * A TCP package (the content of one frame):
 * command (1) | flags (1) | correlation id (16) | [login length (1) | login | password length (1) | password] | body
 * The credentials block is present only when flags has Authenticated (0x01).
 */
export interface TcpPackage {
  command: number;
  flags: number;
  /** 16 bytes, opaque; replies echo them verbatim. */
  correlationId: Buffer;
  login: string | null;
  password: string | null;
  body: Buffer;
}

export const PACKAGE_HEADER_BYTES = 2 + GUID_BYTES;
const MAX_CREDENTIAL_BYTES = 255;

export class PackageError extends Error {
  readonly code = 'HOMEPORT_TCP_PACKAGE';
}

/** Parses one frame's bytes. Throws PackageError when the package is too short or its credentials are cut off. */
export function parsePackage(frame: Buffer): TcpPackage {
  if (frame.length < PACKAGE_HEADER_BYTES) {
    throw new PackageError(`package of ${frame.length} bytes is shorter than the ${PACKAGE_HEADER_BYTES}-byte header`);
  }
  const command = frame[0];
  const flags = frame[1];
  // Copied: subscriptions keep correlation ids for a long time and must not pin the receive buffer.
  const correlationId = Buffer.from(frame.subarray(2, PACKAGE_HEADER_BYTES));
  let offset = PACKAGE_HEADER_BYTES;
  let login: string | null = null;
  let password: string | null = null;
  if (flags & TcpFlags.Authenticated) {
    const loginLength = frame[offset];
    if (loginLength === undefined || offset + 1 + loginLength > frame.length)
      throw new PackageError('login length is past the end of the package');
    login = frame.toString('utf8', offset + 1, offset + 1 + loginLength);
    offset += 1 + loginLength;
    const passwordLength = frame[offset];
    if (passwordLength === undefined || offset + 1 + passwordLength > frame.length)
      throw new PackageError('password length is past the end of the package');
    password = frame.toString('utf8', offset + 1, offset + 1 + passwordLength);
    offset += 1 + passwordLength;
  }
  return { command, flags, correlationId, login, password, body: frame.subarray(offset) };
}

/**
 * The complete frame (length prefix included) for a package. The server never sends credentials,
 * but tests and tools use this to speak as a client.
 */
export function encodeFrame(
  command: number,
  correlationId: Uint8Array,
  body: Uint8Array | null,
  options: { flags?: number; login?: string; password?: string } = {},
): Buffer {
  if (correlationId.length !== GUID_BYTES) throw new RangeError(`a correlation id is ${GUID_BYTES} bytes`);
  let flags = options.flags ?? TcpFlags.None;
  let credentials: Buffer | null = null;
  if (options.login !== undefined || options.password !== undefined) {
    const login = Buffer.from(options.login ?? '', 'utf8');
    const password = Buffer.from(options.password ?? '', 'utf8');
    if (login.length > MAX_CREDENTIAL_BYTES || password.length > MAX_CREDENTIAL_BYTES)
      throw new RangeError('login and password are at most 255 bytes each');
    credentials = Buffer.concat([Buffer.of(login.length), login, Buffer.of(password.length), password]);
    flags |= TcpFlags.Authenticated;
  }
  const bodyLength = body?.length ?? 0;
  const packageLength = PACKAGE_HEADER_BYTES + (credentials?.length ?? 0) + bodyLength;
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + packageLength);
  out.writeInt32LE(packageLength, 0);
  out[4] = command;
  out[5] = flags;
  out.set(correlationId, 6);
  let offset = FRAME_HEADER_BYTES + PACKAGE_HEADER_BYTES;
  if (credentials) {
    out.set(credentials, offset);
    offset += credentials.length;
  }
  if (body && bodyLength) out.set(body, offset);
  return out;
}
