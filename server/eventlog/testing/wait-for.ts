/** Waits until `condition` holds; the deadline only guards against a hung test, it is not a timing assertion. */
export async function waitFor(condition: () => boolean, what: string, deadlineMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > deadlineMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
