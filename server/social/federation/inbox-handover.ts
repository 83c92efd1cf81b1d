import type { Message, RequestContext } from '@fedify/fedify';
import { Activity } from '@fedify/vocab';
import type { FedDeps } from './deps.ts';
import type { PlainCreate } from './inbox-plain-create.ts';

/** Puts a message in Fedify's queue; resolves once it is on disk. */
export type EnqueueMessage = (message: Message) => Promise<void>;

/**
 * The key's owner of a verified delivery; `actorChecked` when the activity was read as JSON-LD already and its
 * actor is that owner, `expanded` that reading's expansion (see inbox-expansions.ts).
 */
export interface VerifiedSigner {
  owner: string;
  actorChecked: boolean;
  /** As JSON. */
  expanded?: string;
  /** The worker's reading of a plain Create signed by its own actor (inbox-plain-create.ts). */
  plain?: PlainCreate;
}

export type HandoverVerdict = { queued: true } | { queued: false; status: number; reason: string };

/**
 * A delivery to the shared inbox whose HTTP signature the intake verified, signed by its own actor and carrying
 * no integrity proof (the Linked Data signature of a Create is not checked: the actor signed the request): Fedify's inbox handler would verify
 * the same signature again (its key parsed again from its cache) and read the activity twice more before
 * queueing it. Here it is read once, its actor, as JSON-LD reads it (a context can rename terms, so the plain
 * JSON's `actor` proves nothing), must be the key's owner, and it is queued as Fedify queues it: its listener
 * runs from the queue, and the answer (202) waits until the queued message is on disk.
 * Anything else (personal inboxes, relayed activities, integrity proofs) goes through Fedify's handler.
 */
export async function queueVerifiedActivity(
  origin: string,
  context: () => RequestContext<FedDeps>,
  json: object,
  signer: VerifiedSigner,
  enqueue: EnqueueMessage,
): Promise<HandoverVerdict> {
  // Read in the verifier's worker already (inbox-verifier.ts), or here.
  const refused = signer.actorChecked ? null : await actorRefusal(context(), json, signer.owner);
  if (refused) return refused;
  await enqueue({
    type: 'inbox',
    id: crypto.randomUUID(),
    baseUrl: origin,
    activity: json,
    identifier: null,
    attempt: 0,
    started: new Date().toISOString(),
    traceContext: {},
    // As Fedify queues an activity whose HTTP signature it verified and its Linked Data signature not: read
    // without that signature, which it would otherwise compact the activity to check.
    ...('signature' in json ? { ldSignatureVerified: false } : {}),
    // Its listener reads the worker's fields; any other message, Fedify reads from the worker's expansion.
    ...(signer.actorChecked && signer.plain ? { plainCreate: signer.plain } : {}),
    ...(signer.actorChecked && !signer.plain && signer.expanded ? { expandedActivity: signer.expanded } : {}),
  });
  return { queued: true };
}

/** Why the activity is refused: it does not read as one, or its actor is not the key's owner. */
async function actorRefusal(
  context: RequestContext<FedDeps>,
  json: unknown,
  keyOwner: string,
): Promise<HandoverVerdict | null> {
  let activity: Activity;
  try {
    activity = await Activity.fromJsonLd(json, {
      documentLoader: context.documentLoader,
      contextLoader: context.contextLoader,
    });
  } catch (err) {
    // Reading never fetches (contexts come preloaded or as the fallback; objects are read lazily): any error
    // is the document's.
    return { queued: false, status: 400, reason: `Invalid activity: ${(err as Error).message}` };
  }
  // Without a context nothing in it means anything as JSON-LD, not even its actor (Fedify answers the same).
  if (activity.actorId === null) return { queued: false, status: 400, reason: 'Missing actor.' };
  if (activity.actorId.href !== keyOwner) {
    context.data.logger.info(
      { keyOwner, actor: activity.actorId.href },
      'an inbox delivery was refused: its signer is not its actor',
    );
    return { queued: false, status: 401, reason: 'The signer and the actor do not match.' };
  }
  return null;
}
