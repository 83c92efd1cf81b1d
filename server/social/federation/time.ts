import { Temporal as TemporalPolyfill } from '@js-temporal/polyfill';

/**
 * A Temporal.Duration for Fedify's options (Node 22 has no Temporal; Fedify uses the polyfill, whose types
 * differ from the standard library's declarations Fedify's typings name).
 */
export function duration(ms: number): Temporal.Duration {
  return TemporalPolyfill.Duration.from({ milliseconds: Math.round(ms) }) as unknown as Temporal.Duration;
}
