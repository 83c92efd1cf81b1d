import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, startHomeport, type Homeport } from './index.ts';
import { isDataDirLocked } from './lock.ts';
import { startTestHomeport } from './testing/homeport.ts';

const running: Homeport[] = [];
const dirs: string[] = [];
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-start-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  for (const hp of running.splice(0)) await hp.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<Homeport> {
  const hp = await startTestHomeport(dataDir);
  running.push(hp);
  return hp;
}

/** Sends a HeartbeatRequest frame and waits for the HeartbeatResponse with the same correlation id. */
function heartbeat(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const frame = Buffer.alloc(4 + 18);
    frame.writeInt32LE(18, 0);
    frame[4] = 0x01;
    frame.fill(7, 6, 22);
    socket.on('connect', () => socket.write(frame));
    let buf = Buffer.alloc(0);
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 22) {
        socket.destroy();
        resolve(buf[4]);
      }
    });
    socket.on('error', reject);
  });
}

describe('startHomeport', () => {
  it('binds loopback listeners on free ports and serves HTTP and the event-log protocol', async () => {
    const hp = await start(tempDir());
    expect(hp.listeners.map((l) => l.name).sort()).toEqual(['eventlog-grpc', 'eventlog-tcp', 'eventlog-tls', 'http']);
    for (const l of hp.listeners) {
      expect(l.host).toBe('127.0.0.1');
      expect(l.port).toBeGreaterThan(0);
    }
    const res = await fetch(`${hp.httpUrl}/api/homeport/v1/server`);
    expect(res.status).toBe(401);
    expect(await heartbeat(hp.tcpPort)).toBe(0x02);
    expect(fs.existsSync(path.join(hp.config.dataDir, 'eventlog.db'))).toBe(true);
    expect(fs.existsSync(path.join(hp.config.dataDir, 'social.db'))).toBe(true);
  });

  it('refuses a second server on the same data directory and frees it on close', async () => {
    const dir = tempDir();
    const first = await start(dir);
    await expect(
      startHomeport({ dataDir: dir, httpPort: 0, tcpPort: 0, tcpTlsPort: null, logToConsole: false }),
    ).rejects.toBeInstanceOf(DataDirLockedError);
    await first.close();
    running.splice(running.indexOf(first), 1);
    const second = await start(dir);
    expect(second.tcpPort).toBeGreaterThan(0);
  });

  it('runs two independent instances on two data directories', async () => {
    const a = await start(tempDir());
    const b = await start(tempDir());
    expect(a.httpUrl).not.toBe(b.httpUrl);
    expect(a.tcpPort).not.toBe(b.tcpPort);
    expect(await heartbeat(a.tcpPort)).toBe(0x02);
    expect(await heartbeat(b.tcpPort)).toBe(0x02);
  });

  it('releases the lock when start-up fails half way', async () => {
    const dir = tempDir();
    const blocker = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const busyPort = (blocker.address() as net.AddressInfo).port;
    await expect(
      startHomeport({ dataDir: dir, httpPort: busyPort, tcpPort: 0, tcpTlsPort: null, logToConsole: false }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    blocker.close();
    expect(isDataDirLocked(dir)).toBe(false);
  });
});
