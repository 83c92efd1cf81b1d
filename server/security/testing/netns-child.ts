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
