import type { Activity, Recipient } from '@fedify/vocab';
import type { Account } from '../store/index.ts';
import type { FedContext, FedDeps } from './deps.ts';

/** Queues `activity` from a local account to `recipients` (those the domain policy allows). */
export type Send = (from: Account, recipients: Recipient[], activity: Activity) => Promise<void>;

/** The local, not deleted account `id`, or null. */
export function localAccount(deps: FedDeps, id: string): Account | null {
  const a = deps.social.store.accounts.byId(id);
  return a && a.domain === null && a.deletedAt === null ? a : null;
}

/** The remote account `id` with a known actor URI, or null. */
export function remoteAccount(deps: FedDeps, id: string): Account | null {
  const a = deps.social.store.accounts.byId(id);
  return a && a.domain !== null && a.uri ? a : null;
}

/** A group of outgoing activities Outbound delegates to: it sends through Outbound (which tracks the work). */
export abstract class OutboundPart {
  protected readonly deps: FedDeps;
  protected readonly context: () => FedContext;
  protected readonly send: Send;

  constructor(deps: FedDeps, context: () => FedContext, send: Send) {
    this.deps = deps;
    this.context = context;
    this.send = send;
  }
}
