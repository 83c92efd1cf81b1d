/**
 * Lets through at most `perWindow` lines of one kind per window and then one summary of how many were held
 * back, so a flood (anonymous clients sending broken packages by the thousand) cannot push everything else
 * out of the in-memory log the Server view shows.
 */
export class LogThrottle {
  private windowStart = 0;
  private passed = 0;
  private suppressed = 0;
  private readonly perWindow: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(options: { perWindow?: number; windowMs?: number; now?: () => number } = {}) {
    this.perWindow = options.perWindow ?? 20;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Calls `write` when this line may go out; `summary` (with the count held back in the previous window) is
   * called first when a new window opens after suppression.
   */
  log(write: () => void, summary: (suppressed: number) => void): void {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      if (this.suppressed > 0) summary(this.suppressed);
      this.windowStart = now;
      this.passed = 0;
      this.suppressed = 0;
    }
    if (this.passed < this.perWindow) {
      this.passed++;
      write();
    } else this.suppressed++;
  }
}
