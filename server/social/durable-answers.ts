import type { FastifyError, FastifyInstance } from 'fastify';
import type { SocialStore } from './store/index.ts';

/**
 * The other half of group commit (StoreCore.groupCommits): an answer sent while writes wait for their COMMIT
 * waits for it too, so no client is told of, or shown, anything that is not on disk yet. A lost group (disk
 * full) turns the answer into that error. Answers with nothing pending go at once.
 */
export function holdAnswersUntilDurable(app: FastifyInstance, store: SocialStore): void {
  app.addHook('onSend', (_req, _reply, payload, done) => {
    if (!store.writesPending) return done(null, payload);
    store.durable().then(
      () => done(null, payload),
      (err: unknown) => done(err as FastifyError),
    );
  });
}
