/**
 * A background worker over a queue kept in SQLite (Web Push deliveries, CSV import rows): `drain` works off
 * what is due and returns when nothing is; `kick` starts it, or has it run again once the current pass ends
 * (new work arrived meanwhile); a timer wakes it when `nextDue` says later work falls due. Started at open,
 * so what a stopped or crashed process left in the table is resumed.
 */
export interface DrainLoop {
  kick(): void;
  /** Resolves when no pass is running and nothing is due. */
  idle(): Promise<void>;
  /** Stops: the running pass sees its signal aborted and is waited for; nothing starts afterwards. */
  close(): Promise<void>;
}

export interface DrainLoopOptions {
  /** One pass; `signal` aborts when the loop closes. */
  drain(signal: AbortSignal): Promise<void>;
  /** When the next piece of work falls due (ms since the epoch), null when none waits for a time. */
  nextDue?: () => number | null;
  now: () => number;
  onError(err: unknown): void;
}

export function startDrainLoop(options: DrainLoopOptions): DrainLoop {
  const nextDue = options.nextDue ?? (() => null);
  const stop = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;

  function schedule(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    const next = nextDue();
    if (next === null || stop.signal.aborted) return;
    timer = setTimeout(kick, Math.max(0, Math.min(next - options.now(), 2 ** 31 - 1)));
    timer.unref();
  }

  function kick(): void {
    if (stop.signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = options
      .drain(stop.signal)
      .catch(options.onError)
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick();
        } else schedule();
      });
  }

  kick();
  return {
    kick,
    async idle() {
      while (running || (nextDue() ?? Infinity) <= options.now()) {
        if (!running) kick();
        if (!running) return;
        await running;
      }
    },
    async close() {
      stop.abort();
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
