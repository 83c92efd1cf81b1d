import net from 'node:net';
import type { NamespaceContext } from './netns.ts';

/*
 * The script side of runInNamespace (netns.ts): what the test handed in, and the one way to hand a result
 * back (over the IPC channel to the boot process, which passes it on to the test).
 */

/** The test CA, the leaf certificates and the test's input (throws outside runInNamespace). */
export function namespaceContext<Input = unknown>(): NamespaceContext & { input: Input } {
  const raw = process.env.HOMEPORT_NETNS;
  if (!raw) throw new Error('not run by runInNamespace (HOMEPORT_NETNS is not set)');
  return JSON.parse(raw) as NamespaceContext & { input: Input };
}

/** Sends `value` (JSON-serialisable) to the test; call once, then close what the script opened and let it end. */
export function report(value: unknown): Promise<void> {
  if (!process.send) throw new Error('not run by runInNamespace (no IPC channel)');
  const send = process.send.bind(process);
  return new Promise((resolve, reject) => send(value, undefined, undefined, (err) => (err ? reject(err) : resolve())));
}

/**
 * A TCP listener that only counts the connections it gets: the stand-in for what a guard must keep requests
 * from (a loopback or private service), counting even a connection a TLS handshake would later fail.
 */
export async function connectionCounter(
  host: string,
  port: number,
): Promise<{ readonly connections: number; close(): Promise<void> }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return {
    get connections() {
      return connections;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
