/** Wakes a waiting loop when something happened (a commit); a wake before the wait is not lost. */
export class WakeSignal {
  private pending = false;
  private waiter: (() => void) | null = null;

  wake(): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w();
    } else this.pending = true;
  }

  wait(): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }
}
