/**
 * The seeded data of the social timelines benchmark (bench/social-timelines.ts): accounts, follows and statuses
 * written through the social server's own services, deterministic so every run seeds the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createLogger, LogRing } from '../../server/logger.ts';
import { type Account, openSocialAdmin } from '../../server/social/index.ts';

export const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 200);
export const STATUSES = Number(process.env.BENCH_STATUSES ?? 200_000);
export const OWNER_FOLLOWS = Math.min(Number(process.env.BENCH_OWNER_FOLLOWS ?? 150), ACCOUNTS - 1);
const OTHER_FOLLOWS = 3;
const TAGS = [
  'photography',
  'music',
  'homeport',
  'cats',
  'dogs',
  'coffee',
  'books',
  'cycling',
  'gardening',
  'linux',
  'art',
  'travel',
  'food',
  'science',
  'history',
  'running',
  'fediverse',
  'sqlite',
  'typescript',
  'weather',
];
const SEEDED_MARKER = 'bench-social-seeded.json';

export const benchLogger = () => createLogger({ level: 'warn', toConsole: false, ring: new LogRing(10) });

/** A small deterministic random generator, so every run seeds the same data. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Seeded {
  ownerToken: string;
  accounts: number;
  statuses: number;
}

/** Seeds `dataDir` once through the social services (reused when its marker says the same sizes). */
export async function seed(dataDir: string): Promise<Seeded> {
  const marker = path.join(dataDir, SEEDED_MARKER);
  if (fs.existsSync(marker)) {
    const seeded = JSON.parse(fs.readFileSync(marker, 'utf8')) as Seeded;
    if (seeded.accounts === ACCOUNTS && seeded.statuses === STATUSES) {
      console.log(`reusing seeded data in ${dataDir}`);
      return seeded;
    }
    throw new Error(
      `${dataDir} holds a different seed (${seeded.accounts} accounts, ${seeded.statuses} statuses); use another BENCH_DATA_DIR`,
    );
  }
  const started = Date.now();
  const handle = openSocialAdmin({ dataDir, logger: benchLogger() });
  const ctx = handle.context;
  const rand = random(42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];

  // Accounts (key pairs are generated on the thread pool: a few at a time).
  const names = Array.from({ length: ACCOUNTS }, (_, i) => (i === 0 ? 'owner' : `user${i}`));
  const accounts: Account[] = [];
  for (let i = 0; i < names.length; i += 8) {
    const batch = await Promise.all(
      names.slice(i, i + 8).map((username) =>
        ctx.accounts.create({
          username,
          email: `${username}@bench.example`,
          password: `pw-${username}-bench`,
          confirmed: true,
          approved: true,
        }),
      ),
    );
    accounts.push(...batch.map((c) => c.account));
  }
  const owner = accounts[0];
  const others = accounts.slice(1);
  const users = new Map(accounts.map((a) => [a.id, ctx.store.users.byAccountId(a.id)]));
  console.log(`${ACCOUNTS} accounts in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // Follows: the owner follows OWNER_FOLLOWS accounts; everyone else follows a few.
  for (const target of others.slice(0, OWNER_FOLLOWS)) ctx.relationships.follow(owner, target);
  for (const account of others) {
    for (let k = 0; k < OTHER_FOLLOWS; k++) {
      const target = pick(accounts);
      if (target.id !== account.id) ctx.relationships.follow(account, target);
    }
  }

  // Statuses, posted through the status service in batches of one transaction each.
  const t0 = Date.now();
  const recent: string[] = [];
  const BATCH = 2_000;
  let posted = 0;
  while (posted < STATUSES) {
    ctx.store.transaction(() => {
      for (let i = 0; i < BATCH && posted < STATUSES; i++, posted++) {
        const author = rand() < 0.05 ? owner : pick(accounts);
        const poster = { account: author, user: users.get(author.id) ?? null, applicationId: null };
        const roll = rand();
        if (roll < 0.05 && recent.length > 0) {
          try {
            ctx.statuses.reblog(poster, pick(recent), 'public');
            continue;
          } catch {
            // reblogging one's own or an already reblogged status: post instead
          }
        }
        const tags = [pick(TAGS), ...(rand() < 0.3 ? [pick(TAGS)] : [])].map((t) => `#${t}`).join(' ');
        const mention = rand() < 0.2 ? ` @${pick(names)}` : '';
        const link = rand() < 0.15 ? ` https://example.org/articles/${posted}` : '';
        const visibility = rand() < 0.85 ? 'public' : rand() < 0.5 ? 'unlisted' : 'private';
        const inReplyToId = roll > 0.9 && recent.length > 0 ? pick(recent) : null;
        const result = ctx.statuses.post(poster, {
          text: `Status number ${posted} about things${mention}${link} ${tags}`,
          visibility,
          inReplyToId,
        });
        if (result.kind === 'status' && visibility === 'public') {
          recent.push(result.status.id);
          if (recent.length > 500) recent.shift();
        }
      }
    });
    if (posted % 20_000 === 0)
      console.log(`  ${posted} statuses (${Math.round(posted / ((Date.now() - t0) / 1000))}/s)`);
  }
  console.log(`${STATUSES} statuses in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const { token } = handle.admin.createToken('owner', 'read write follow');
  // Seeding through the admin handle relays every event to the next server start (249,000 here, 41 s of start-up and
  // its heap at 737 MiB, then more work in the first rounds); a server that lived through these posts has delivered
  // them long ago, so they are dropped.
  ctx.store.db.exec('DELETE FROM relayed_events');
  ctx.store.db.pragma('wal_checkpoint(TRUNCATE)');
  // No ANALYZE: a served database never has planner statistics, and with them (STAT4) SQLite re-prepares
  // every statement whose bound values change, which cost this benchmark 15% that no user would see.
  await handle.close();
  const seeded: Seeded = { ownerToken: token, accounts: ACCOUNTS, statuses: STATUSES };
  fs.writeFileSync(marker, JSON.stringify(seeded));
  return seeded;
}
