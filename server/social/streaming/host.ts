import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SocialUrls } from '../urls.ts';

/**
 * onRequest for streaming routes: when streaming has a host of its own, a request that reached the main host
 * is sent there (301, as Mastodon documents for clients that guess the streaming address).
 */
export function redirectToStreamingHost(urls: SocialUrls) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!urls.separateStreaming) return;
    const target = new URL(urls.separateStreaming);
    if ((req.headers.host ?? '').toLowerCase() === target.host.toLowerCase()) return;
    const scheme = target.protocol === 'wss:' ? 'https' : 'http';
    return reply.redirect(`${scheme}://${target.host}${req.url}`, 301);
  };
}
