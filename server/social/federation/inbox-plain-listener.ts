import type { KvKey, KvStore } from '@fedify/fedify';
import { localAccountByUri, type FedDeps } from './deps.ts';
import { deletedBeforeArrival, refusalsLogged, refusedByDomainPolicy, relevantStatus } from './inbox.ts';
import type { PlainCreateMessage } from './inbox-plain-create.ts';
import { oneObjectAtATime } from './inbound-object-locks.ts';
import { knownAccountByUri } from './known-accounts.ts';
import { quotePolicyOf } from './quotes-inbound.ts';
import { parsePlainStatus, storeRemoteStatus } from './statuses-inbound.ts';
import { duration } from './time.ts';

/** Plain Creates handled by handlePlainCreate so far (tests count it). */
export const plainCreatesHandled = { count: 0 };

/** Fedify's mark of an activity it handled (its default prefix, by origin and activity id) and how long it stays. */
const IDEMPOTENCE_PREFIX = ['_fedify', 'activityIdempotence'] as const;
const HANDLED_FOR = duration(24 * 60 * 60 * 1000);

/**
 * Handles a queued plain Create as Fedify's queue and the Create listener (inbox.ts) handle one, from the fields
 * the verifier's worker read: nothing when the activity's id was handled already (Fedify's own mark, shared with
 * its path), the domain policy, the sender as a known account, the post's relevance here, one activity per post
 * at a time, a post deleted before it arrived, the object's attribution and origin (parsePlainStatus), then the
 * post stored and the activity marked handled. False, with nothing done, when the sender is not known here yet:
 * Fedify's handling of the message then fetches it. A failure throws before the mark: the caller hands the
 * message to Fedify's handling, which runs it again and retries as it does any activity.
 */
export async function handlePlainCreate(deps: FedDeps, kv: KvStore, message: PlainCreateMessage): Promise<boolean> {
  const { activityId, actor, object } = message.plainCreate;
  const mark: KvKey = [...IDEMPOTENCE_PREFIX, new URL(message.baseUrl).origin, activityId];
  if ((await kv.get(mark)) === true) {
    plainCreatesHandled.count++;
    return true;
  }
  if (!refusedByDomainPolicy(deps, new URL(actor).hostname, activityId, false)) {
    const author = localAccountByUri(deps, actor) ?? knownAccountByUri(deps.social.store, actor);
    if (!author) return false;
    if (author.domain !== null && relevantStatus(deps, author, object.inReplyTo, [...object.to, ...object.cc]))
      await refusalsLogged(deps, activityId, () =>
        oneObjectAtATime(deps, object.id, async () => {
          if (await deletedBeforeArrival(deps, author, object.id)) return;
          const parsed = parsePlainStatus(object, author);
          // As readIncomingQuote: a post known already is not created again, its policy not read.
          const quote = deps.repo.statusByUri(parsed.uri)
            ? null
            : { policy: quotePolicyOf(object.quoteApprovals, author), quote: null };
          storeRemoteStatus(deps, author, parsed, quote, false);
        }),
      );
  }
  await kv.set(mark, true, { ttl: HANDLED_FOR });
  plainCreatesHandled.count++;
  return true;
}
