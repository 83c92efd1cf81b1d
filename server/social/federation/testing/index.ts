/** The federation's test support that benchmarks use. */
export { mastodonCreate } from './activities.ts';
