import { openSocialAdmin } from '/work/main/server/social/index.ts';
import pino from 'pino';
const h = openSocialAdmin({ dataDir: process.argv[2], logger: pino({ level: 'warn' }) });
const ctx = h.context;
const acct = ctx.store.accounts.byHandle('alice', null)!;
const user = ctx.store.users.byAccountId(acct.id)!;
try { console.log(JSON.stringify(ctx.presenter.credential(acct, user)).slice(0, 300)); } catch (e) { console.error(e); }
await h.close();
