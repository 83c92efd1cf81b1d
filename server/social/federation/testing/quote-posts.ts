/** Posts as the Mastodon API shows them on one server of a test network, for the quote tests. */
import {
  apiCall,
  eventually,
  FollowingPair,
  type NetworkUser as User,
  type TestInstance,
  useNetworkFixture,
} from './test-network.ts';

export type Status = {
  id: string;
  uri: string;
  content: string;
  edited_at: string | null;
  quote: { state: string; quoted_status?: { id: string; uri: string } | null } | null;
  quote_approval: { automatic: string[]; current_user: string };
};

export async function getStatus(instance: TestInstance, user: User, id: string): Promise<Status> {
  const res = await apiCall(instance, user, 'GET', `/api/v1/statuses/${id}`);
  return res.json as Status;
}

/** A post of `author` as `reader` sees it on their server, once it arrived. */
export async function arrived(instance: TestInstance, reader: User, uri: string): Promise<Status> {
  return eventually(async () => {
    const res = await apiCall(
      instance,
      reader,
      'GET',
      `/api/v2/search?q=${encodeURIComponent(uri)}&resolve=true&type=statuses`,
    );
    return (res.json.statuses as Status[] | undefined)?.find((s) => s.uri === uri) ?? null;
  }, `${uri} on ${instance.host}`);
}

export async function activityJson(url: string): Promise<any> {
  const res = await fetch(url, { headers: { accept: 'application/activity+json' } });
  return res.status === 200 ? res.json() : { status: res.status };
}

/** A FollowingPair (alice on a.test, bob on b.test) and a third server with one user, where quotes come from. */
export class QuoteServers extends FollowingPair {
  third!: TestInstance;
  thirdUser!: User;
  private readonly thirdHost: string;
  private readonly thirdUsername: string;

  constructor(thirdHost: string, thirdUsername: string) {
    super();
    this.thirdHost = thirdHost;
    this.thirdUsername = thirdUsername;
  }

  override async start(): Promise<void> {
    await super.start();
    this.third = await this.net.add(this.thirdHost);
    this.thirdUser = await this.third.createUser(this.thirdUsername);
  }
}

/** QuoteServers set up before the file's tests (before its own beforeAll) and closed after them. */
export function useQuoteServers(thirdHost: string, thirdUsername: string): QuoteServers {
  return useNetworkFixture(new QuoteServers(thirdHost, thirdUsername));
}
