/** A projection's read-process-write loop: woken by commits, stopped after the step in flight. */
import type { EventStore } from '../store/index.ts';
import { WakeSignal } from './wake-signal.ts';

export class RunLoop {
  readonly wake = new WakeSignal();
  private loop: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;
  private stopRequested = false;

  get stopping(): boolean {
    return this.stopRequested;
  }

  /** Runs `body` until it returns or throws (`onError`); the store's commits wake it. */
  start(store: EventStore, body: () => Promise<void>, onError: (err: unknown) => void): Promise<void> {
    if (this.loop) return this.loop;
    this.stopRequested = false;
    this.unsubscribe = store.onCommitted(() => this.wake.wake());
    this.loop = body().catch(onError);
    return this.loop;
  }

  get running(): boolean {
    return this.loop !== null;
  }

  async stop(): Promise<void> {
    this.stopRequested = true;
    this.wake.wake();
    await this.loop;
    this.loop = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  ended(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }
}
