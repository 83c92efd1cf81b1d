import type { FastifyReply } from 'fastify';

/** An HTTP error the route layer turns into `{ error }` with the right status. */
export class UiApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof UiApiError) return reply.code(err.status).send({ error: err.message });
  const code = (err as { code?: string }).code;
  if (code === 'HOMEPORT_STORE_BUSY')
    return reply.code(503).send({ error: 'The event store is busy; try again in a moment' });
  if (code === 'HOMEPORT_STORE_NOT_READY') return reply.code(503).send({ error: 'The event store is not ready yet' });
  throw err;
}

/** Maps a store read/write result code to an HTTP error (null for success-like codes). */
export function errorForResult(result: string, stream: string, message?: string): UiApiError | null {
  switch (result) {
    case 'Success':
    case 'NotModified':
      return null;
    case 'NoStream':
      return new UiApiError(404, `Stream "${stream}" does not exist`);
    case 'NotFound':
      return new UiApiError(404, message ?? `Not found in stream "${stream}"`);
    case 'StreamDeleted':
      return new UiApiError(410, `Stream "${stream}" has been deleted`);
    case 'AccessDenied':
      return new UiApiError(403, `Access to "${stream}" is denied by its ACL`);
    case 'WrongExpectedVersion':
      return new UiApiError(409, message ?? `Stream "${stream}" changed; reload and try again`);
    case 'PrepareTimeout':
    case 'CommitTimeout':
    case 'ForwardTimeout':
      return new UiApiError(503, message ?? 'The write timed out; try again');
    default:
      return new UiApiError(400, message ?? `${result} on stream "${stream}"`);
  }
}
