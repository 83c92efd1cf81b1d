/** A number for the subscription benchmark's report: grouped thousands, `digits` decimals, "n/a" when not finite. */
export function fmt(n: number, digits = 0): string {
  return Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';
}
