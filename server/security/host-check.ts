import net from 'node:net';

/**
 * DNS-rebinding defence: a web page on any domain can re-point its name at 127.0.0.1 and then talk to a local
 * server as a same-origin page. Such requests carry the attacker's name in `Host`, so only these are served:
 * IP literals (a rebinding attack needs a name), `localhost` and `*.localhost` (browsers resolve those to
 * loopback themselves), and the names this instance is configured with (its domain, its public URL).
 */
export function isAllowedHost(hostHeader: string | undefined, allowedNames: readonly string[]): boolean {
  if (!hostHeader) return false;
  const name = hostName(hostHeader);
  if (name === null) return false;
  if (net.isIP(name) !== 0) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return allowedNames.some((allowed) => hostName(allowed) === name);
}

/** The lower-cased host name of a `Host` value (`[::1]:3000` → `::1`, `Example.org.:80` → `example.org`); null when malformed. */
export function hostName(host: string): string | null {
  const value = host.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0) return null;
    const rest = value.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return null;
    return value.slice(1, end);
  }
  const m = /^([a-z0-9.-]+?)\.?(?::(\d{1,5}))?$/.exec(value);
  return m ? m[1] : null;
}

/** Whether a listen address is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const name = hostName(host) ?? host;
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}
