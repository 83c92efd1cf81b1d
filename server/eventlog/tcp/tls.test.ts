import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTlsMaterial, TLS_CERT_FILE, TLS_DIR, TLS_KEY_FILE } from './tls.ts';

const logger = pino({ level: 'silent' });

describe('TLS certificate of the event-log listener', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-tls-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('generates a certificate on first start, keeps it, and clients can verify it for 127.0.0.1', async () => {
    const first = await loadTlsMaterial({ dataDir, host: '127.0.0.1', logger });
    expect(first.source).toBe('generated');
    const keyFile = path.join(dataDir, TLS_DIR, TLS_KEY_FILE);
    if (process.platform !== 'win32') expect(fs.statSync(keyFile).mode & 0o077).toBe(0);
    const second = await loadTlsMaterial({ dataDir, host: '127.0.0.1', logger });
    expect(second).toMatchObject({ source: 'data-dir', cert: first.cert, key: first.key });

    const server = tls.createServer({ cert: first.cert, key: first.key }, (s) => s.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port, ca: first.cert }, () =>
          socket.once('data', (d) => resolve(String(d))),
        );
        socket.once('error', reject);
      });
      expect(text).toBe('ok');
    } finally {
      server.close();
    }
  });

  it('uses a configured certificate given as files or PEM text', async () => {
    const generated = await loadTlsMaterial({ dataDir, host: '127.0.0.1', logger });
    const certFile = path.join(dataDir, TLS_DIR, TLS_CERT_FILE);
    const keyFile = path.join(dataDir, TLS_DIR, TLS_KEY_FILE);
    expect(
      await loadTlsMaterial({ dataDir: os.tmpdir(), host: '127.0.0.1', logger, tlsCert: certFile, tlsKey: keyFile }),
    ).toMatchObject({ source: 'configured', cert: generated.cert });
    expect(
      (
        await loadTlsMaterial({
          dataDir: os.tmpdir(),
          host: '127.0.0.1',
          logger,
          tlsCert: generated.cert,
          tlsKey: generated.key,
        })
      ).key,
    ).toBe(generated.key);
    await expect(loadTlsMaterial({ dataDir, host: '127.0.0.1', logger, tlsCert: certFile })).rejects.toThrow(/both/);
    await expect(
      loadTlsMaterial({ dataDir, host: '127.0.0.1', logger, tlsCert: '/nonexistent.pem', tlsKey: keyFile }),
    ).rejects.toThrow(/cannot read/);
  });
});

describe('the running TLS listener', () => {
  it('presents the certificate in the data directory, which a validating client accepts for 127.0.0.1 and localhost', async () => {
    const { startTestHomeport } = await import('../../testing/homeport.ts');
    const { encodeFrame, parsePackage } = await import('./package.ts');
    const { FrameReader } = await import('./framing.ts');
    const { TcpCommand } = await import('./commands.ts');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-tls-live-'));
    const hp = await startTestHomeport(dataDir);
    try {
      const ca = fs.readFileSync(path.join(dataDir, TLS_DIR, TLS_CERT_FILE));
      for (const host of ['127.0.0.1', 'localhost']) {
        const reply = await new Promise<number>((resolve, reject) => {
          // rejectUnauthorized (the default) and the host name check: a real verification, not validateServer: false.
          const socket = tls.connect(
            { host, port: hp.tlsPort!, ca, servername: host === 'localhost' ? 'localhost' : undefined },
            () => {
              socket.write(encodeFrame(TcpCommand.Ping, Buffer.alloc(16, 1), null));
            },
          );
          const reader = new FrameReader();
          socket.on('data', (d) =>
            reader.push(d, (frame) => {
              resolve(parsePackage(frame).command);
              socket.destroy();
            }),
          );
          socket.once('error', reject);
        });
        expect(reply).toBe(TcpCommand.Pong);
      }
      // A client trusting nothing but the system's authorities refuses it: the verification above was real.
      const refused = await new Promise<string>((resolve) => {
        const socket = tls.connect({ host: '127.0.0.1', port: hp.tlsPort! }, () => resolve('connected'));
        socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      });
      expect(refused).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/);
    } finally {
      await hp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
