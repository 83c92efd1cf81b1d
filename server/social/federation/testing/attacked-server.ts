import { sampleMemory, startServeProcess, type ServeProcess } from '../../../testing/serve-process.ts';

/*
 * A `homeport serve` under attack, seen as its user sees it: a user with a token, the Mastodon API, and what an
 * attack costs it (`measured`: its memory and CPU from /proc, and a home-timeline request made over and over
 * meanwhile, which must keep answering). Restarted in place (same data and port) as a crash and a restart would.
 */

/** What an attack cost the server, and what ordinary requests got meanwhile. */
export interface Measured {
  rssBefore: number;
  rssPeak: number;
  cpuSeconds: number;
  /** The status of each home-timeline request made during the attack (or why it got none). */
  probes: (number | string)[];
}

export interface ImportView {
  state: string;
  total_items: number;
  failed_items: number;
  failures: { row: number; data: { acct: string }; error: string }[];
}

/**
 * Pause between two ordinary requests of the probe (pacing, not synchronisation), and between two polls of
 * `until`: the API allows an account 300 requests in 5 minutes, and the probe is another user's.
 */
const PROBE_PAUSE_MS = 500;
const POLL_PAUSE_MS = 500;
/** An ordinary request that has not answered after this failed (the issue saw 3.1 s; this only stops a hang). */
const PROBE_DEADLINE_MS = 15_000;
const FOLLOWS_HEADER = 'Account address,Show boosts,Notify on new posts,Languages';

/** Polls until `check` gives a value; fails after `attempts` tries POLL_PAUSE_MS apart. */
export async function until<T>(
  what: string,
  check: () => Promise<T | null | undefined | false>,
  attempts = 240,
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await check().catch(() => null);
    if (value) return value;
    await new Promise((r) => setTimeout(r, POLL_PAUSE_MS));
  }
  throw new Error(`never happened: ${what}`);
}

export class AttackedServer {
  process: ServeProcess;
  /** alice's: the user the attacks are aimed at. */
  readonly token: string;
  /** bob's: the user whose ordinary requests must keep answering. */
  private readonly probeToken: string;

  private constructor(process: ServeProcess, token: string, probeToken: string) {
    this.process = process;
    this.token = token;
    this.probeToken = probeToken;
  }

  /** Starts `homeport serve` over `dataDir` (env as given: the guard stays on) with the users alice and bob. */
  static async start(dataDir: string): Promise<AttackedServer> {
    const process = await startServeProcess({ dataDir, publicUrl: true });
    return new AttackedServer(process, process.createUser('alice'), process.createUser('bob'));
  }

  get url(): string {
    return this.process.httpUrl;
  }

  async api(method: string, route: string, body?: object): Promise<{ status: number; json: any }> {
    const res = await fetch(`${this.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: await res.json() };
  }

  /** The status alice was notified of, once the mention arrived. */
  mentioned(uri: string): Promise<any> {
    return until(`the mention of ${uri}`, async () => {
      const { json } = await this.api('GET', '/api/v1/notifications?types[]=mention&limit=40');
      return (json as { status?: { uri: string } }[]).find((n) => n.status?.uri === uri)?.status;
    });
  }

  /** Starts a CSV import of follows of `accts` as alice; its id. */
  async startImport(accts: string[]): Promise<string> {
    const csv = [FOLLOWS_HEADER, ...accts.map((acct) => `${acct},true,false,`)].join('\n');
    const { status, json } = await this.api('POST', '/api/v1/homeport/imports', {
      type: 'following_accounts',
      data: csv,
    });
    if (status !== 202) throw new Error(`the import got ${status}: ${JSON.stringify(json)}`);
    return json.id;
  }

  finishedImport(id: string): Promise<ImportView> {
    return until(`import ${id} finished`, async () => {
      const { json } = await this.api('GET', `/api/v1/homeport/imports/${id}`);
      return json.state === 'finished' && (json as ImportView);
    });
  }

  /** Kills the server as a crash would (SIGKILL) and starts it again on the same data and port. */
  async crashAndRestart(): Promise<void> {
    await this.process.stop('SIGKILL');
    this.process = await startServeProcess({
      dataDir: this.process.dataDir,
      httpPort: this.process.httpPort,
      publicUrl: true,
    });
  }

  /** Runs `attack` while sampling the server's memory and making ordinary requests; what it cost beside its result. */
  async measured<T extends object>(attack: () => Promise<T>): Promise<T & Measured> {
    const rssBefore = this.process.rss() ?? 0;
    const cpuBefore = this.process.cpuSeconds();
    const memory = sampleMemory(this.process);
    const probes = this.probe();
    try {
      const result = await attack();
      const cpuSeconds = this.process.cpuSeconds() - cpuBefore;
      return { ...result, rssBefore, rssPeak: memory.peak(), cpuSeconds, probes: await probes.stop() };
    } finally {
      memory.stop();
      await probes.stop();
    }
  }

  /** Home-timeline requests one after another until stopped: what each got. */
  private probe(): { stop(): Promise<(number | string)[]> } {
    let stopped = false;
    const got: (number | string)[] = [];
    const loop = (async () => {
      while (!stopped) {
        try {
          const res = await fetch(`${this.url}/api/v1/timelines/home?limit=5`, {
            headers: { authorization: `Bearer ${this.probeToken}` },
            signal: AbortSignal.timeout(PROBE_DEADLINE_MS),
          });
          await res.arrayBuffer();
          got.push(res.status);
        } catch (err) {
          got.push((err as Error).name);
        }
        if (!stopped) await new Promise((r) => setTimeout(r, PROBE_PAUSE_MS));
      }
    })();
    return {
      async stop() {
        stopped = true;
        await loop;
        return got;
      },
    };
  }
}
