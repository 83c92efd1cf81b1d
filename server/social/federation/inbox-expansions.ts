import type { MessageQueueListenOptions } from '@fedify/fedify';
import { DelegatingQueue } from './delegating-queue.ts';
import type { JsonLdProcessor } from './jsonld-expanded.ts';
import { isPlainCreateMessage, type PlainCreateMessage } from './inbox-plain-create.ts';

/*
 * The verifier's worker (inbox-verifier.ts) expands a verified shared-inbox activity with jsonld.js to read its
 * actor; that expansion goes into the queued message (`expandedActivity`), and when Fedify's queue reads the
 * activity on the main thread (Activity.fromJsonLd, which expands the same document once per class level), each
 * expansion of that very object is a copy of the handed one instead of jsonld.js's work again (about 0.4 ms of
 * the main thread's CPU for a Mastodon-shaped Create). Fedify's queue handling is otherwise unchanged: the
 * activity it reads, checks (idempotence by id) and gives its listeners (with its raw JSON, what
 * `toJsonLd()` answers) is the queued JSON as before. Both threads read contexts from the same preloaded set and
 * fallback (loaders.ts), never fetched, so the worker's expansion is the one the main thread would make.
 */

/**
 * Handed expansions (as JSON: parsing it is a third of structuredClone's cost, and a string crosses from the worker
 * without the main thread rebuilding an object tree) by the queued activity object they expand, registered as
 * Fedify is given the message.
 */
const handedExpansions = new WeakMap<object, string>();

/** Expansions of queued activities taken from the worker instead of jsonld.js (tests count it). */
export const reusedExpansions = { count: 0 };

/**
 * Makes jsonld.js's `expand` answer a copy of the expansion `known` holds for the very object it is given (as
 * Fedify's reader asks: free-floating nodes kept). Self-contained: the verifier's worker evaluates its source.
 */
export function reuseExpansions(
  jsonld: JsonLdProcessor,
  known: WeakMap<object, string>,
  counter: { count: number },
): void {
  const marked = jsonld as JsonLdProcessor & { reusesExpansions?: true };
  if (marked.reusesExpansions) return;
  marked.reusesExpansions = true;
  const expand = jsonld.expand.bind(jsonld);
  jsonld.expand = async (input, options = {}) => {
    const expanded =
      options.keepFreeFloatingNodes === true && typeof input === 'object' && input !== null
        ? known.get(input)
        : undefined;
    if (expanded === undefined) return expand(input, options);
    counter.count++;
    // A new copy each time: Fedify's reader edits what it gets.
    return JSON.parse(expanded);
  };
}

/** The main thread's jsonld.js reuses the expansions queued inbox messages carry. */
export function reuseHandedExpansions(jsonld: JsonLdProcessor): void {
  reuseExpansions(jsonld, handedExpansions, reusedExpansions);
}

/** An inbox message as the intake queues it: Fedify's, with the worker's expansion of its activity. */
interface HandedInboxMessage {
  type: 'inbox';
  activity: object;
  expandedActivity: string;
}

function isHandedInboxMessage(message: unknown): message is HandedInboxMessage {
  const m = message as Partial<HandedInboxMessage> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.type === 'inbox' &&
    typeof m.activity === 'object' &&
    m.activity !== null &&
    typeof m.expandedActivity === 'string'
  );
}

/** Handles a queued plain Create instead of Fedify (inbox-plain-listener.ts); false: Fedify's handling takes it. */
export type PlainCreateHandler = (message: PlainCreateMessage) => Promise<boolean>;

/**
 * Fedify's queue, where an inbox message the verifier's worker read goes its own way: a plain Create to its
 * listener without Fedify's reading (see inbox-plain-create.ts), unless that answers false; the expansion another
 * message carries registered just before Fedify's handler reads it (the message is the one parsed from the queue's
 * table, so the expansion is known by that object). A retry Fedify queues copies the message whole, the expansion
 * with it.
 */
export class ExpansionHandingQueue extends DelegatingQueue {
  private plainCreates: PlainCreateHandler | null = null;

  /** Plain Creates go to `handler` from now on (the runtime's, once the federation's dependencies are built). */
  handPlainCreates(handler: PlainCreateHandler): void {
    this.plainCreates = handler;
  }

  override listen(
    handler: (message: unknown) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    return this.inner.listen(async (message) => {
      if (this.plainCreates && isPlainCreateMessage(message) && (await this.plainCreates(message))) return;
      if (isHandedInboxMessage(message)) handedExpansions.set(message.activity, message.expandedActivity);
      return handler(message);
    }, options);
  }
}
