import crypto from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { isPrivateAddress, pinnedLookup } from '../../security/index.ts';
import type { SocialStore } from '../store/index.ts';

/*
 * The federation self-check: fetches the instance's own probe, NodeInfo, WebFinger and actor through its
 * public URL, the way another server would, and says in plain words what stands in the way (DNS, TLS, a
 * proxy that rewrites Host or hides the client, another server answering). The probe proves the answer
 * comes from this very instance: the check leaves a random nonce in social.db, which only a process
 * serving this data directory can confirm (so the CLI can check a running server). Its requests connect to
 * the addresses the DNS check judged (one lookup), so a name that resolves differently the next time cannot
 * make the verdict and the connection disagree.
 */

export type CheckStatus = 'ok' | 'warning' | 'error' | 'skipped';

export interface CheckResult {
  name: 'public-url' | 'dns' | 'reach' | 'proxy' | 'nodeinfo' | 'webfinger' | 'actor';
  status: CheckStatus;
  detail: string;
}

export interface SelfCheckReport {
  publicUrl: string;
  ok: boolean;
  checks: CheckResult[];
}

export const PROBE_PATH = '/.well-known/homeport/self-check';
const NONCE_TTL_MS = 2 * 60 * 1000;
const TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 5;
/** Most bytes of a response read (the documents checked are a few kilobytes). */
const MAX_BODY_BYTES = 1024 * 1024;

/** Leaves a nonce the serving process can confirm (shared through social.db, not memory). */
export function issueProbeNonce(store: SocialStore): string {
  const nonce = crypto.randomBytes(24).toString('base64url');
  store.probeNonces.put(nonce, store.now() + NONCE_TTL_MS);
  return nonce;
}

/** True when the nonce was issued for this data directory and has not expired. */
export function knownProbeNonce(store: SocialStore, nonce: string): boolean {
  return /^[A-Za-z0-9_-]{16,64}$/.test(nonce) && store.probeNonces.live(nonce);
}

/** What the probe saw of the request that reached it: the proxy's work, made visible. */
export interface ProbeEcho {
  instance: 'homeport';
  host: string | null;
  forwardedProto: string | null;
  forwardedFor: string | null;
  clientAddress: string;
  /** Whether the forwarded address was believed; null when none was forwarded. */
  trustProxy: boolean | null;
}

const TLS_ADVICE: Record<string, string> = {
  CERT_HAS_EXPIRED: 'the TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT:
    'the TLS certificate is self-signed: other servers refuse it (use a certificate from a public CA such as Let’s Encrypt)',
  SELF_SIGNED_CERT_IN_CHAIN: 'the TLS certificate chain ends in a self-signed certificate other servers do not trust',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the TLS certificate chain is incomplete (serve the intermediate certificates too)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the TLS certificate does not name this host',
  EPROTO: 'the TLS handshake failed (is the port speaking plain HTTP?)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the TLS handshake failed (is the port speaking plain HTTP?)',
};

function describeFetchError(url: URL, err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (err as { code?: string }).code ?? '';
  if (TLS_ADVICE[code]) return `${url.host}: ${TLS_ADVICE[code]} (${code})`;
  if (code === 'ECONNREFUSED')
    return `nothing accepts connections at ${url.host} (is the server, tunnel or proxy running, and the port open?)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `${url.hostname} does not resolve`;
  if ((err as Error).name === 'TimeoutError' || (cause as Error | undefined)?.name === 'TimeoutError')
    return `no answer from ${url.host} within ${TIMEOUT_MS / 1000} s (a firewall, or a tunnel that is down?)`;
  return `${url.host}: ${cause?.message ?? (err as Error).message}`;
}

/** GETs `url` (following redirects) through `lookup`, reading at most MAX_BODY_BYTES; JSON when it parses. */
async function get(url: URL, accept: string, lookup: net.LookupFunction): Promise<{ status: number; json: unknown }> {
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  let current = url;
  for (let hop = 0; ; hop++) {
    const res = await request(current, accept, lookup, signal);
    const location = res.headers.location;
    if ([301, 302, 303, 307, 308].includes(res.statusCode ?? 0) && location && hop < MAX_REDIRECTS) {
      res.resume();
      current = new URL(location, current);
      continue;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        res.destroy();
        break;
      }
      chunks.push(chunk as Buffer);
    }
    let json: unknown = null;
    try {
      json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      // not JSON (or cut short): the status tells
    }
    return { status: res.statusCode ?? 0, json };
  }
}

function request(url: URL, accept: string, lookup: net.LookupFunction, signal: AbortSignal) {
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    // A fresh connection per request (no agent): each one goes through the lookup.
    (url.protocol === 'https:' ? https : http)
      .get(
        url,
        { agent: false, lookup, signal, headers: { Accept: accept, 'User-Agent': 'Homeport self-check' } },
        resolve,
      )
      .on('error', reject);
  });
}

export interface SelfCheckOptions {
  /** An account to look up through WebFinger (the owner's, usually); null skips WebFinger and actor. */
  username: string | null;
  /** The instance's own domain as it names accounts (host[:port] of the public URL). */
  domain: string;
}

/** Runs every check in order; later checks are skipped once the instance cannot be reached at all. */
export async function runSelfCheck(
  store: SocialStore,
  publicUrl: string,
  options: SelfCheckOptions,
): Promise<SelfCheckReport> {
  const checks: CheckResult[] = [];
  const add = (name: CheckResult['name'], status: CheckStatus, detail: string) => checks.push({ name, status, detail });
  const base = new URL(publicUrl);

  if (base.protocol !== 'https:')
    add(
      'public-url',
      'warning',
      `${publicUrl} is not https: Mastodon and most servers only federate over https (set --public-url https://your.domain)`,
    );
  else add('public-url', 'ok', publicUrl);

  let reachable = true;
  let addresses: LookupAddress[] = [];
  try {
    addresses = await dns.lookup(base.hostname.replace(/^\[|\]$/g, ''), { all: true });
    const privateOnes = addresses.filter((a) => isPrivateAddress(a.address));
    if (privateOnes.length === addresses.length) {
      add(
        'dns',
        'warning',
        `${base.hostname} resolves to ${addresses.map((a) => a.address).join(', ')}: a private address other servers cannot reach (fine for a test on this computer)`,
      );
    } else add('dns', 'ok', `${base.hostname} → ${addresses.map((a) => a.address).join(', ')}`);
  } catch (err) {
    add(
      'dns',
      'error',
      `${base.hostname} does not resolve (${(err as { code?: string }).code ?? String(err)}): create an A/AAAA record, or a tunnel hostname`,
    );
    reachable = false;
  }
  const lookup = pinnedLookup(base.hostname, addresses);

  if (reachable) {
    const nonce = issueProbeNonce(store);
    try {
      const probe = await get(new URL(`${PROBE_PATH}/${nonce}`, base), 'application/json', lookup);
      const echo = probe.json as ProbeEcho | null;
      if (probe.status === 421) {
        add(
          'reach',
          'error',
          `${base.host} reaches Homeport, but with a Host header it does not serve: the proxy must pass the original Host (e.g. nginx "proxy_set_header Host $host")`,
        );
        reachable = false;
      } else if (probe.status !== 200 || echo?.instance !== 'homeport') {
        add(
          'reach',
          'error',
          `${publicUrl} is answered by something else than this Homeport instance (HTTP ${probe.status}): check the DNS record, the tunnel or proxy target, and that the public URL belongs to this data directory`,
        );
        reachable = false;
      } else {
        add('reach', 'ok', `${publicUrl} reaches this instance`);
        if (echo.host && echo.host.toLowerCase() !== base.host.toLowerCase())
          add('proxy', 'warning', `the proxy rewrote Host to ${echo.host}`);
        else if (echo.forwardedFor && echo.trustProxy === false)
          add(
            'proxy',
            'warning',
            `requests arrive through a proxy (X-Forwarded-For: ${echo.forwardedFor}) but Homeport does not trust it: start with --trust-proxy so rate limits see each client`,
          );
        else
          add(
            'proxy',
            'ok',
            echo.forwardedFor ? `client address forwarded (${echo.forwardedFor}), trusted` : 'no proxy in between',
          );
      }
    } catch (err) {
      add('reach', 'error', describeFetchError(base, err));
      reachable = false;
    }
  }

  if (!reachable) {
    for (const name of ['nodeinfo', 'webfinger', 'actor'] as const)
      add(name, 'skipped', 'the instance could not be reached');
    return { publicUrl, ok: false, checks };
  }

  try {
    const index = await get(new URL('/.well-known/nodeinfo', base), 'application/json', lookup);
    const links = (index.json as { links?: { rel: string; href: string }[] } | null)?.links ?? [];
    const link = links.find((l) => /nodeinfo\.diaspora\.software\/ns\/schema\/2\.[01]$/.test(l.rel));
    if (!link) add('nodeinfo', 'error', `/.well-known/nodeinfo lists no NodeInfo 2.x document (HTTP ${index.status})`);
    else {
      const href = new URL(link.href);
      const doc = await get(href, 'application/json', lookup);
      const software = (doc.json as { software?: { name?: string } } | null)?.software?.name;
      if (href.origin !== base.origin)
        add(
          'nodeinfo',
          'error',
          `NodeInfo points to ${href.origin}, not ${base.origin}: the public URL and the configured one differ`,
        );
      else if (software !== 'homeport')
        add('nodeinfo', 'error', `NodeInfo names its software "${software ?? 'nothing'}"`);
      else add('nodeinfo', 'ok', `${href.pathname} describes this Homeport`);
    }
  } catch (err) {
    add('nodeinfo', 'error', describeFetchError(base, err));
  }

  if (options.username === null) {
    add('webfinger', 'skipped', 'no local account yet (create one to check WebFinger and the actor)');
    add('actor', 'skipped', 'no local account yet');
    return { publicUrl, ok: checks.every((c) => c.status !== 'error'), checks };
  }
  const handle = `${options.username}@${options.domain}`;
  let actorUrl: URL | null = null;
  try {
    const finger = await get(
      new URL(`/.well-known/webfinger?resource=${encodeURIComponent(`acct:${handle}`)}`, base),
      'application/jrd+json',
      lookup,
    );
    const self = (
      (finger.json as { links?: { rel: string; type?: string; href?: string }[] } | null)?.links ?? []
    ).find((l) => l.rel === 'self' && l.href);
    if (finger.status !== 200 || !self?.href)
      add('webfinger', 'error', `WebFinger does not know acct:${handle} (HTTP ${finger.status})`);
    else {
      actorUrl = new URL(self.href);
      if (actorUrl.origin !== base.origin)
        add('webfinger', 'error', `WebFinger sends other servers to ${actorUrl.origin}, not ${base.origin}`);
      else add('webfinger', 'ok', `acct:${handle} → ${actorUrl.href}`);
    }
  } catch (err) {
    add('webfinger', 'error', describeFetchError(base, err));
  }
  if (!actorUrl) add('actor', 'skipped', 'WebFinger gave no actor');
  else {
    try {
      const actor = await get(actorUrl, 'application/activity+json', lookup);
      const doc = actor.json as { id?: string; inbox?: string; publicKey?: { publicKeyPem?: string } } | null;
      if (actor.status !== 200 || !doc?.id)
        add(
          'actor',
          'error',
          `the actor document did not load as ActivityStreams (HTTP ${actor.status}): the proxy must pass the Accept header through`,
        );
      else if (doc.id !== actorUrl.href)
        add('actor', 'error', `the actor calls itself ${doc.id}, not ${actorUrl.href}`);
      else if (!doc.publicKey?.publicKeyPem)
        add('actor', 'error', 'the actor has no public key: signatures cannot be checked');
      else if (!doc.inbox || new URL(doc.inbox).origin !== base.origin)
        add('actor', 'error', `its inbox ${doc.inbox ?? '(none)'} is not under ${base.origin}`);
      else add('actor', 'ok', `${doc.id} with its key and inbox`);
    } catch (err) {
      add('actor', 'error', describeFetchError(base, err));
    }
  }
  return { publicUrl, ok: checks.every((c) => c.status !== 'error'), checks };
}

/** The self-check of an instance as configured: its recorded public URL, its owner's (or first admin's) account. */
export async function checkInstance(
  social: { store: SocialStore; urls: { base: string; domain: string } },
  publicUrl = social.urls.base,
): Promise<SelfCheckReport> {
  const staff = social.store.users.staffContact();
  const account = staff ? social.store.accounts.byId(staff.accountId) : null;
  return runSelfCheck(social.store, publicUrl, {
    username: account?.username ?? null,
    domain: new URL(publicUrl).host,
  });
}

/** A report as lines for a terminal. */
export function formatReport(report: SelfCheckReport): string[] {
  const mark: Record<CheckStatus, string> = { ok: 'ok     ', warning: 'warning', error: 'ERROR  ', skipped: 'skipped' };
  return [
    `Federation self-check of ${report.publicUrl}`,
    ...report.checks.map((c) => `  ${mark[c.status]}  ${c.name.padEnd(9)} ${c.detail}`),
    report.ok
      ? 'Other servers can reach this instance.'
      : 'Other servers cannot federate with this instance yet: fix the errors above.',
  ];
}
