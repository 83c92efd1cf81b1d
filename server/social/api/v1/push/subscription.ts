// https://docs.joinmastodon.org/methods/push/
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { serializePushSubscription } from '../../../entities/index.ts';
import { DetailsCollector } from '../../../errors.ts';
import {
  auth,
  currentUser,
  tokenBeforeBody,
  presentedToken,
  parseParams,
  requestParams,
  zBool,
  zString,
} from '../../../http/index.ts';
import { ALERT_TYPES, POLICIES, alertsFrom, pushEndpointProblem } from '../../../push/index.ts';
import type { PushPolicy } from '../../../store/index.ts';
import { UPDATE_METHODS } from '../../update-methods.ts';

const alertsSchema = z
  .object(Object.fromEntries(ALERT_TYPES.map((t) => [t, zBool.optional()])))
  .partial()
  .optional();
const policySchema = z.enum(POLICIES as [PushPolicy, ...PushPolicy[]]).optional();
const dataSchema = z.object({ alerts: alertsSchema, policy: policySchema }).optional();

const createSchema = z.object({
  subscription: z.object({
    endpoint: zString,
    keys: z.object({ p256dh: zString, auth: zString }),
    standard: zBool.optional(),
  }),
  data: dataSchema,
  // masto.js sends the policy at the top level.
  policy: policySchema,
});

const updateSchema = z.object({ data: dataSchema, policy: policySchema });

const ENDPOINT_MAX = 2048;

function decodesTo(value: string, bytes: number): boolean {
  const normalized = value.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(normalized)) return false;
  return Buffer.from(normalized, 'base64').length === bytes;
}

export function pushSubscriptionRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.post('/api/v1/push/subscription', { config: { auth: auth.user('push') } }, async (req) => {
    const { account, token } = currentUser(req);
    const p = parseParams(createSchema, requestParams(req));
    const details = new DetailsCollector();
    let endpoint: URL | null = null;
    try {
      endpoint = new URL(p.subscription.endpoint);
    } catch {
      details.add('endpoint', 'ERR_INVALID', 'is not a valid URL');
    }
    const problem = endpoint && pushEndpointProblem(endpoint);
    if (problem) details.add('endpoint', 'ERR_INVALID', problem);
    if (p.subscription.endpoint.length > ENDPOINT_MAX)
      details.add('endpoint', 'ERR_TOO_LONG', `is too long (maximum is ${ENDPOINT_MAX} characters)`);
    // An uncompressed P-256 point is 65 bytes; the auth secret 16.
    if (!decodesTo(p.subscription.keys.p256dh, 65))
      details.add('keys.p256dh', 'ERR_INVALID', 'must be a base64 encoded P-256 public key');
    if (!decodesTo(p.subscription.keys.auth, 16))
      details.add('keys.auth', 'ERR_INVALID', 'must be a base64 encoded 16-byte secret');
    details.throwIfAny();
    const row = ctx.pushSubscriptions.subscribe({
      accessTokenId: token.id,
      accessToken: presentedToken(req) ?? tokenBeforeBody(req) ?? '',
      accountId: account.id,
      endpoint: p.subscription.endpoint,
      p256dh: p.subscription.keys.p256dh,
      auth: p.subscription.keys.auth,
      standard: p.subscription.standard ?? false,
      alerts: alertsFrom(p.data?.alerts),
      policy: p.data?.policy ?? p.policy ?? 'all',
    });
    return serializePushSubscription(row, ctx.vapidPublicKey);
  });

  app.get('/api/v1/push/subscription', { config: { auth: auth.user('push') } }, async (req) =>
    serializePushSubscription(ctx.pushSubscriptions.ofToken(currentUser(req).token.id), ctx.vapidPublicKey),
  );

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/push/subscription',
    config: { auth: auth.user('push') },
    handler: async (req) => {
      const { token } = currentUser(req);
      const row = ctx.pushSubscriptions.ofToken(token.id);
      const p = parseParams(updateSchema, requestParams(req));
      const updated = ctx.pushSubscriptions.update(token.id, {
        alerts: alertsFrom(p.data?.alerts, row.alerts),
        policy: p.data?.policy ?? p.policy ?? row.policy,
      });
      return serializePushSubscription(updated, ctx.vapidPublicKey);
    },
  });

  app.delete('/api/v1/push/subscription', { config: { auth: auth.user('push') } }, async (req) => {
    ctx.pushSubscriptions.unsubscribe(currentUser(req).token.id);
    return {};
  });
}
