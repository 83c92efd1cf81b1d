import { startSocialTestServer } from '../server/social/testing/harness.ts';
const s = await startSocialTestServer();
const owner = await s.createUser('owner', { role: 'owner' });
const ids: string[] = [];
let t = performance.now();
for (let i = 0; i < 40; i++) ids.push((await s.createUser(`u${i}`)).accountId);
console.log(`create 40 accounts (RSA 2048 + scrypt each): ${((performance.now() - t) / 40).toFixed(1)} ms/account`);
for (const id of ids.slice(0, 20)) await s.masto(owner.token).v1.accounts.$select(id).follow();
const tokens = Array.from({ length: 4 }, () => s.admin.createToken('owner', 'read write follow').token);
async function bench(name: string, path: string, n: number) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${s.url}${path}`, { headers: { Authorization: `Bearer ${tokens[Math.floor(i / 250)]}` } });
    if (r.status !== 200) throw new Error(`${r.status}`);
    await r.arrayBuffer();
  }
  const ms = performance.now() - t0;
  console.log(`${name}: ${(n / (ms / 1000)).toFixed(0)} req/s sequential (${(ms / n).toFixed(2)} ms each)`);
}
await bench('GET verify_credentials', '/api/v1/accounts/verify_credentials', 500);
await bench('GET relationships (40 ids)', `/api/v1/accounts/relationships?${ids.map((i) => `id[]=${i}`).join('&')}`, 500);
await bench('GET following (40/page)', `/api/v1/accounts/${owner.accountId}/following?limit=40`, 500);
await bench('GET /api/v2/instance', '/api/v2/instance', 200);
await s.close();
