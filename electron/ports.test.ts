import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHomeport } from '../server/index.ts';
import { choosePorts, freePort, movedPortsMessage, startOnFreePorts } from './ports.ts';

const HOST = '127.0.0.1';
const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Another program holding a port. */
async function occupy(): Promise<number> {
  const server = net.createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen({ host: HOST, port: 0 }, resolve));
  return (server.address() as net.AddressInfo).port;
}

describe('desktop ports', () => {
  it('keeps free preferred ports and moves taken ones to other free ports', async () => {
    const taken = await occupy();
    const [free1, free2, free3] = [await freePort(HOST), await freePort(HOST), await freePort(HOST)];
    const preferred = { httpPort: taken, tcpPort: free1, tcpTlsPort: free2, grpcPort: free3 };
    const { ports, moved } = await choosePorts(HOST, preferred);
    expect(moved).toEqual(['httpPort']);
    expect(ports.tcpPort).toBe(free1);
    expect(ports.tcpTlsPort).toBe(free2);
    expect(ports.grpcPort).toBe(free3);
    expect(ports.httpPort).not.toBe(taken);
    expect(new Set(Object.values(ports)).size).toBe(4);
    expect(movedPortsMessage(preferred, ports, moved)).toBe(
      `UI and social server (HTTP): port ${taken} was in use, Homeport listens on ${ports.httpPort} instead.\n` +
        'Clients need these ports this time; the tray menu lists every address.',
    );
    expect(movedPortsMessage(ports, ports, [])).toBeNull();
  });

  it('starts Homeport although every preferred port is taken (it used to quit with an error box)', async () => {
    const preferred = {
      httpPort: await occupy(),
      tcpPort: await occupy(),
      tcpTlsPort: await occupy(),
      grpcPort: await occupy(),
    };
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-ports-'));
    const {
      started: hp,
      ports,
      moved,
    } = await startOnFreePorts(HOST, preferred, (p) =>
      startHomeport({ dataDir, host: HOST, logToConsole: false, rendererDir: null, ...p }),
    );
    try {
      expect(moved).toEqual(['httpPort', 'tcpPort', 'tcpTlsPort', 'grpcPort']);
      expect(hp.listeners.map((l) => l.port).sort()).toEqual(Object.values(ports).sort());
      expect((await fetch(`${hp.httpUrl}/api/v1/instance`)).status).toBe(200);
      // The social server's own address follows the port it got.
      expect(hp.config.domain).toBe(`localhost:${ports.httpPort}`);
    } finally {
      await hp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
