// Entry of the bundle smoke test (electron/bundle.test.ts): the server code bundled exactly as the
// Electron main process bundles it must find its files (proto/, renderer/dist) and serve.
import fs from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { startHomeport } from '../server/index.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-bundle-'));
const hp = await startHomeport({ dataDir, httpPort: 0, tcpPort: 0, tcpTlsPort: null, logToConsole: false });
const page = await fetch(`${hp.httpUrl}/`);
const html = await page.text();
// The gRPC service definitions (proto/kurrentdb) load with the first gRPC call: make one.
const grpcStatus = await new Promise<string>((resolve, reject) => {
  const session = http2.connect(`https://127.0.0.1:${hp.grpc!.port}`, { ca: fs.readFileSync(hp.grpc!.caFile!) });
  session.on('error', reject);
  const call = session.request({
    ':method': 'POST',
    ':path': '/event_store.client.server_features.ServerFeatures/GetSupportedMethods',
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  call.on('trailers', (trailers) => {
    session.close();
    resolve(String(trailers['grpc-status']));
  });
  call.on('error', reject);
  call.resume();
  call.end(Buffer.alloc(5)); // an empty message
});
console.log(
  JSON.stringify({
    status: page.status,
    servesUi: html.includes('<div id="root">'),
    grpcStatus,
    listeners: hp.listeners.map((l) => l.name),
  }),
);
await hp.close();
fs.rmSync(dataDir, { recursive: true, force: true });
