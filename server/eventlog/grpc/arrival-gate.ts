/**
 * Lets appends that arrive together reach the store together. grpc-js hands over a call's messages about one
 * per event-loop turn (it pauses the HTTP/2 stream after each), so appends sent at once by a client finish
 * arriving over several turns and would each start a commit of their own, while the store commits whatever is
 * queued in one turn together (group commit). An append that has fully arrived waits while others are still
 * arriving, for a few turns at most, and then all that are ready go to the store in the same turn. Nothing is
 * acknowledged earlier than before: an append still answers only once its commit is on disk.
 */

/** Event-loop turns a complete append waits for others at most. */
export const MAX_WAIT_TURNS = 3;

/**
 * The same for the appends of one BatchAppend stream, where nothing tells whether another is coming: a complete
 * append waits while the stream keeps delivering messages, turn after turn, for a few turns at most; then all
 * that are ready go together.
 */
export class StreamArrivals {
  private ready: (() => void)[] = [];
  private delivered = false;
  private turnsLeft = 0;
  private scheduled = false;

  /** A message of the stream came. */
  delivering(): void {
    this.delivered = true;
  }

  /** Runs `go` once the stream has been quiet for a turn, or after MAX_WAIT_TURNS turns. */
  whenQuiet(go: () => void): void {
    this.ready.push(go);
    if (this.scheduled) return;
    this.scheduled = true;
    this.delivered = false;
    this.turnsLeft = MAX_WAIT_TURNS;
    const turn = () => {
      if (this.delivered && --this.turnsLeft > 0) {
        this.delivered = false;
        setImmediate(turn);
        return;
      }
      this.scheduled = false;
      const ready = this.ready;
      this.ready = [];
      for (const run of ready) run();
    };
    setImmediate(turn);
  }
}

export class ArrivalGate {
  /** Appends whose messages are still coming. */
  private arriving = 0;
  private waiting: (() => void)[] = [];
  private turnsLeft = 0;
  private scheduled = false;

  /** An append's first message came; call `ready` (or `abandon`) once it is complete. */
  start(): { ready(): Promise<void>; abandon(): void } {
    this.arriving++;
    let done = false;
    const leave = () => {
      if (done) return false;
      done = true;
      this.arriving--;
      return true;
    };
    return {
      ready: () => {
        if (!leave()) return Promise.resolve();
        if (this.arriving === 0 && this.waiting.length === 0) return Promise.resolve();
        const going = new Promise<void>((resolve) => this.waiting.push(resolve));
        if (this.arriving === 0) this.release();
        else this.wait();
        return going;
      },
      abandon: () => {
        if (leave() && this.arriving === 0) this.release();
      },
    };
  }

  private wait(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.turnsLeft = MAX_WAIT_TURNS;
    const turn = () => {
      if (!this.scheduled) return;
      if (this.arriving === 0 || --this.turnsLeft <= 0) this.release();
      else setImmediate(turn);
    };
    setImmediate(turn);
  }

  private release(): void {
    this.scheduled = false;
    const waiting = this.waiting;
    this.waiting = [];
    for (const go of waiting) go();
  }
}
