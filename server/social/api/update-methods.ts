/**
 * The methods of a resource's `update`: Mastodon's Rails routes (`resources … only: :update`) answer both,
 * and clients use either (Phanpy PUTs the notification policy that masto.js PATCHes). Only
 * `update_credentials` is PATCH alone, as Mastodon routes it.
 */
export const UPDATE_METHODS = ['PUT', 'PATCH'];
