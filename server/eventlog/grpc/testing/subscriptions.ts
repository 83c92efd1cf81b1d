import type { KurrentDBClient } from '@kurrent/kurrentdb-client';

/** What a subscription delivered, and a way to wait for more without fixed sleeps. */
export interface Recorder<T> {
  events: T[];
  caughtUp: number;
  checkpoints: { commit: bigint; prepare: bigint }[];
  /** Resolves once `predicate` holds; rejects after `timeoutMs` (a generous bound, not a timing assertion). */
  until(predicate: () => boolean, timeoutMs?: number): Promise<void>;
}

type Subscription<T> = AsyncIterable<T> & {
  on(event: 'caughtUp', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
};

export function record<T>(subscription: Subscription<T>): Recorder<T> & { errors: Error[] } {
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of waiters) w();
  };
  const recorder = {
    events: [] as T[],
    caughtUp: 0,
    checkpoints: [] as { commit: bigint; prepare: bigint }[],
    errors: [] as Error[],
    until(predicate: () => boolean, timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (recorder.errors.length > 0) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(recorder.errors[0]);
          } else if (predicate()) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`condition not met within ${timeoutMs} ms (${recorder.events.length} events)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
  subscription.on('caughtUp', () => {
    recorder.caughtUp++;
    notify();
  });
  subscription.on('error', (err) => {
    recorder.errors.push(err);
    notify();
  });
  (async () => {
    try {
      for await (const event of subscription) {
        recorder.events.push(event);
        notify();
      }
    } catch (err) {
      recorder.errors.push(err as Error);
      notify();
    }
  })();
  return Object.assign(recorder, {
    /** For checkpointReached callbacks. */
    checkpoint(position: { commit: bigint; prepare: bigint }) {
      recorder.checkpoints.push(position);
      notify();
    },
  });
}

type Client = KurrentDBClient;
