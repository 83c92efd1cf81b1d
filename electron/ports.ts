import net from 'node:net';

/** The desktop app's listeners and the ports it prefers (the documented defaults: 3000, 1113, 1115, 2113). */
export interface DesktopPorts {
  httpPort: number;
  tcpPort: number;
  tcpTlsPort: number;
  grpcPort: number;
}

export const LISTENER_LABELS: Record<keyof DesktopPorts, string> = {
  httpPort: 'UI and social server (HTTP)',
  tcpPort: 'event log (TCP)',
  tcpTlsPort: 'event log (TLS)',
  grpcPort: 'event log (gRPC)',
};

/** Whether `port` can be listened on at `host` now (another program may take it a moment later). */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** A port the system has free at `host` now. */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ host, port: 0, exclusive: true }, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The preferred ports where they are free, another free port for each one taken (by another program or a second
 * copy of a server), and which ones moved, so the app can say where its listeners are instead of quitting.
 * A concrete port (not 0) keeps the social server's address consistent with where it listens.
 */
export async function choosePorts(
  host: string,
  preferred: DesktopPorts,
): Promise<{ ports: DesktopPorts; moved: (keyof DesktopPorts)[] }> {
  const ports = { ...preferred };
  const moved: (keyof DesktopPorts)[] = [];
  const taken = new Set<number>();
  for (const key of Object.keys(preferred) as (keyof DesktopPorts)[]) {
    if (await isPortFree(host, preferred[key])) {
      taken.add(preferred[key]);
      continue;
    }
    let port = await freePort(host);
    // Two fallbacks picked one after the other could be the same port (each probe closes before the next).
    while (taken.has(port)) port = await freePort(host);
    taken.add(port);
    ports[key] = port;
    moved.push(key);
  }
  return { ports, moved };
}

/**
 * Starts with free ports: a preferred port taken between the check and the start (a race with another
 * program) is tried once more with new choices. Any other failure is the caller's to report.
 */
export async function startOnFreePorts<T>(
  host: string,
  preferred: DesktopPorts,
  start: (ports: DesktopPorts) => Promise<T>,
): Promise<{ started: T; ports: DesktopPorts; moved: (keyof DesktopPorts)[] }> {
  for (let attempt = 1; ; attempt++) {
    const { ports, moved } = await choosePorts(host, preferred);
    try {
      return { started: await start(ports), ports, moved };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 2) throw err;
    }
  }
}

/** What the app tells the user when listeners moved, e.g. "Port 3000 (UI and social server) was in use…". */
export function movedPortsMessage(
  preferred: DesktopPorts,
  chosen: DesktopPorts,
  moved: readonly (keyof DesktopPorts)[],
): string | null {
  if (moved.length === 0) return null;
  const lines = moved.map(
    (key) => `${LISTENER_LABELS[key]}: port ${preferred[key]} was in use, Homeport listens on ${chosen[key]} instead.`,
  );
  return `${lines.join('\n')}\nClients need these ports this time; the tray menu lists every address.`;
}
