// Entry of the bundle smoke test (electron/bundle.test.ts): the server code bundled exactly as the
// Electron main process bundles it must find its files (proto/, renderer/dist) and serve.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHomeport } from '../server/index.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-bundle-'));
const hp = await startHomeport({ dataDir, httpPort: 0, tcpPort: 0, tcpTlsPort: null, logToConsole: false });
const page = await fetch(`${hp.httpUrl}/`);
const html = await page.text();
console.log(
  JSON.stringify({
    status: page.status,
    servesUi: html.includes('<div id="root">'),
    listeners: hp.listeners.map((l) => l.name),
  }),
);
await hp.close();
fs.rmSync(dataDir, { recursive: true, force: true });
